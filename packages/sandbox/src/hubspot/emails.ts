/**
 * Marketing emails with HubSpot's versioning (spec part 3):
 *
 * - `live` holds the current version, numbered `version`. Changing it (a properties update, a publish
 *   of a draft, a restore) first archives it as revision number `version`, and the new content becomes
 *   version + 1; so a restored revision comes back under a new number.
 * - `draft` holds pending edits, or NULL when the draft is simply the live version; reading the draft
 *   then returns the live version, and resetting the draft sets it back to NULL.
 * - Publishing makes the draft live and the state PUBLISHED; unpublishing withdraws a published email.
 * - A/B testing pairs an email (master) with one variation; each points at the other.
 */
import type Database from 'better-sqlite3';
import { badRequest, notFound, type Handler, type HubspotContext, type HubspotRequest } from './context.js';
import { iso } from './time.js';
import { responseEnum } from './table.js';

type Fields = Record<string, unknown>;

export interface EmailRow {
  id: number;
  live: string;
  draft: string | null;
  version: number;
  state: string;
  published_at: number | null;
  unpublished_at: number | null;
  ab_partner: number | null;
  ab_role: 'master' | 'variant' | null;
  cloned_from: number | null;
  created_by: number;
  updated_by: number;
  created_at: number;
  updated_at: number;
}

interface RevisionRow {
  version: number;
  fields: string;
  state: string;
  updated_by: number;
  updated_at: number;
}

export function createEmailTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS marketing_emails (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      live TEXT NOT NULL,
      draft TEXT,
      version INTEGER NOT NULL,
      state TEXT NOT NULL,
      published_at INTEGER,
      unpublished_at INTEGER,
      ab_partner INTEGER,
      ab_role TEXT,
      cloned_from INTEGER,
      created_by INTEGER NOT NULL,
      updated_by INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS marketing_email_revisions (
      email_id INTEGER NOT NULL,
      version INTEGER NOT NULL,
      fields TEXT NOT NULL,
      state TEXT NOT NULL,
      updated_by INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (email_id, version)
    );
  `);
}

const EMAIL = 'get-/marketing/v3/emails/{emailId}';
const LANGUAGES = new Set(responseEnum(EMAIL, 'language'));

export function findEmail(db: Database.Database, id: string | number): EmailRow | undefined {
  if (!/^\d+$/.test(String(id))) return undefined;
  return db.prepare('SELECT * FROM marketing_emails WHERE id = ?').get(Number(id)) as EmailRow | undefined;
}

function requireEmail(db: Database.Database, id: string | number): EmailRow {
  const row = findEmail(db, id);
  if (!row) throw notFound(`email ${id}`);
  return row;
}

function requireRevision(db: Database.Database, email: EmailRow, revisionId: string): RevisionRow {
  const row = /^\d+$/.test(revisionId)
    ? (db.prepare('SELECT * FROM marketing_email_revisions WHERE email_id = ? AND version = ?').get(email.id, Number(revisionId)) as RevisionRow | undefined)
    : undefined;
  if (!row) throw notFound(`revision ${revisionId} of email ${email.id}`);
  return row;
}

/** State is kept beside the content; a request may set it, publishing and unpublishing change it. */
function splitState(body: Fields): { fields: Fields; state?: string } {
  const { state, ...fields } = body;
  return { fields, ...(typeof state === 'string' && { state }) };
}

/** The email as the API shows it, for the given content (live, draft or a revision's). */
function render(row: EmailRow, fields: Fields = JSON.parse(row.live) as Fields, state = row.state) {
  const ab = row.ab_role !== null && row.ab_partner !== null;
  return {
    ...fields,
    ...(fields.businessUnitId !== undefined && { businessUnitId: String(fields.businessUnitId) }),
    id: String(row.id),
    state,
    isPublished: state === 'PUBLISHED',
    ...(row.published_at !== null && { publishedAt: iso(row.published_at) }),
    ...(row.unpublished_at !== null && { unpublishedAt: iso(row.unpublished_at) }),
    type: ab ? 'AB_EMAIL' : 'BATCH_EMAIL',
    isTransactional: false,
    isAb: ab,
    ...(ab && {
      subcategory: row.ab_role === 'master' ? 'ab_master' : 'ab_variant',
      testing: { ...(fields.testing as Fields | undefined), isAbVariation: row.ab_role === 'variant', abStatus: row.ab_role! },
    }),
    archived: fields.archived === true,
    ...(row.cloned_from !== null && { clonedFrom: String(row.cloned_from) }),
    createdById: String(row.created_by),
    updatedById: String(row.updated_by),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

function insertEmail(ctx: HubspotContext, appId: number, fields: Fields, state = 'DRAFT', clonedFrom: number | null = null): EmailRow {
  checkLanguage(fields.language, 'language');
  const now = ctx.clock.now();
  const { lastInsertRowid } = ctx.db
    .prepare(
      `INSERT INTO marketing_emails (live, version, state, cloned_from, created_by, updated_by, created_at, updated_at)
       VALUES (?, 1, ?, ?, ?, ?, ?, ?)`,
    )
    .run(JSON.stringify(fields), state, clonedFrom, appId, appId, now, now);
  return requireEmail(ctx.db, Number(lastInsertRowid));
}

/** The request schemas take any language string; the answers only HubSpot's codes. */
function checkLanguage(language: unknown, field: string): void {
  if (language !== undefined && !LANGUAGES.has(String(language))) {
    throw badRequest(`${field} must be a language code such as en or pt-br`, [
      { message: `unknown language '${String(language)}'`, in: 'body', code: 'INVALID_VALUE' },
    ]);
  }
}

/** Archives the current version as a revision and makes `fields` the live version, numbered one higher. */
function replaceLive(ctx: HubspotContext, row: EmailRow, fields: Fields, appId: number): void {
  ctx.db
    .prepare('INSERT INTO marketing_email_revisions (email_id, version, fields, state, updated_by, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(row.id, row.version, row.live, row.state, row.updated_by, row.updated_at);
  ctx.db
    .prepare('UPDATE marketing_emails SET live = ?, version = ?, updated_by = ?, updated_at = ? WHERE id = ?')
    .run(JSON.stringify(fields), row.version + 1, appId, ctx.clock.now(), row.id);
}

function setDraft(ctx: HubspotContext, row: EmailRow, draft: Fields | null, appId: number): void {
  ctx.db
    .prepare('UPDATE marketing_emails SET draft = ?, updated_by = ?, updated_at = ? WHERE id = ?')
    .run(draft === null ? null : JSON.stringify(draft), appId, ctx.clock.now(), row.id);
}

const draftOf = (row: EmailRow): Fields => JSON.parse(row.draft ?? row.live) as Fields;

function renderRevision(row: EmailRow, revision: RevisionRow) {
  return {
    id: String(revision.version),
    object: render(row, JSON.parse(revision.fields) as Fields, revision.state),
    updatedAt: iso(revision.updated_at),
    user: appUser(revision.updated_by),
  };
}

/** Changes are made by apps (one per token), so the "user" of a revision is the app that made it. */
const appUser = (appId: number) => ({ id: String(appId), email: `app-${appId}@apps.hubspot.invalid`, fullName: `App ${appId}` });

const OP = {
  create: 'post-/marketing/v3/emails/',
  list: 'get-/marketing/v3/emails/',
  get: EMAIL,
  update: 'patch-/marketing/v3/emails/{emailId}',
  delete: 'delete-/marketing/v3/emails/{emailId}',
  getDraft: 'get-/marketing/v3/emails/{emailId}/draft',
  updateDraft: 'patch-/marketing/v3/emails/{emailId}/draft',
  resetDraft: 'post-/marketing/v3/emails/{emailId}/draft/reset',
  publish: 'post-/marketing/v3/emails/{emailId}/publish',
  unpublish: 'post-/marketing/v3/emails/{emailId}/unpublish',
  revisions: 'get-/marketing/v3/emails/{emailId}/revisions',
  revision: 'get-/marketing/v3/emails/{emailId}/revisions/{revisionId}',
  restore: 'post-/marketing/v3/emails/{emailId}/revisions/{revisionId}/restore',
  restoreToDraft: 'post-/marketing/v3/emails/{emailId}/revisions/{revisionId}/restore-to-draft',
  clone: 'post-/marketing/v3/emails/clone',
  createVariation: 'post-/marketing/v3/emails/ab-test/create-variation',
  getVariation: 'get-/marketing/v3/emails/{emailId}/ab-test/get-variation',
};

export const emailHandlers: Record<string, Handler> = {
  [OP.create]: ({ body, appId }: HubspotRequest<Fields>, ctx) => {
    const { fields, state } = splitState(body);
    return { status: 201, body: render(insertEmail(ctx, appId, fields, state)) };
  },

  [OP.list]: (_req, ctx) => {
    const rows = ctx.db.prepare('SELECT * FROM marketing_emails ORDER BY id').all() as EmailRow[];
    return { status: 200, body: { total: rows.length, results: rows.map((row) => render(row)) } };
  },

  [OP.get]: ({ params }, ctx) => ({ status: 200, body: render(requireEmail(ctx.db, params.emailId!)) }),

  [OP.update]: ({ params, body, appId }: HubspotRequest<Fields>, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    const { fields, state } = splitState(body);
    checkLanguage(fields.language, 'language');
    replaceLive(ctx, row, { ...(JSON.parse(row.live) as Fields), ...fields }, appId);
    if (state) ctx.db.prepare('UPDATE marketing_emails SET state = ? WHERE id = ?').run(state, row.id);
    return { status: 200, body: render(requireEmail(ctx.db, row.id)) };
  },

  [OP.delete]: ({ params }, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    ctx.db.prepare('DELETE FROM marketing_email_revisions WHERE email_id = ?').run(row.id);
    ctx.db.prepare('UPDATE marketing_emails SET ab_partner = NULL, ab_role = NULL WHERE ab_partner = ?').run(row.id);
    ctx.db.prepare('DELETE FROM marketing_emails WHERE id = ?').run(row.id);
    return { status: 204 };
  },

  [OP.getDraft]: ({ params }, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    return { status: 200, body: render(row, draftOf(row)) };
  },

  // A shallow merge: a nested object in the body (content, to, from, ...) replaces the draft's.
  [OP.updateDraft]: ({ params, body, appId }: HubspotRequest<Fields>, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    const { fields } = splitState(body);
    checkLanguage(fields.language, 'language');
    setDraft(ctx, row, { ...draftOf(row), ...fields }, appId);
    const updated = requireEmail(ctx.db, row.id);
    return { status: 200, body: render(updated, draftOf(updated)) };
  },

  [OP.resetDraft]: ({ params, appId }, ctx) => {
    setDraft(ctx, requireEmail(ctx.db, params.emailId!), null, appId);
    return { status: 204 };
  },

  [OP.publish]: ({ params, appId }, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    if (row.draft !== null) {
      replaceLive(ctx, row, JSON.parse(row.draft) as Fields, appId);
      ctx.db.prepare('UPDATE marketing_emails SET draft = NULL WHERE id = ?').run(row.id);
    }
    ctx.db
      .prepare("UPDATE marketing_emails SET state = 'PUBLISHED', published_at = ?, unpublished_at = NULL, updated_by = ?, updated_at = ? WHERE id = ?")
      .run(ctx.clock.now(), appId, ctx.clock.now(), row.id);
    return { status: 204 };
  },

  [OP.unpublish]: ({ params, appId }, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    if (row.state !== 'PUBLISHED') throw badRequest(`email ${row.id} is not published`);
    ctx.db
      .prepare("UPDATE marketing_emails SET state = 'DRAFT', unpublished_at = ?, updated_by = ?, updated_at = ? WHERE id = ?")
      .run(ctx.clock.now(), appId, ctx.clock.now(), row.id);
    return { status: 204 };
  },

  [OP.revisions]: ({ params }, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    const revisions = ctx.db.prepare('SELECT * FROM marketing_email_revisions WHERE email_id = ? ORDER BY version DESC').all(row.id) as RevisionRow[];
    return { status: 200, body: { total: revisions.length, results: revisions.map((revision) => renderRevision(row, revision)) } };
  },

  [OP.revision]: ({ params }, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    return { status: 200, body: renderRevision(row, requireRevision(ctx.db, row, params.revisionId!)) };
  },

  [OP.restore]: ({ params, appId }, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    const revision = requireRevision(ctx.db, row, params.revisionId!);
    replaceLive(ctx, row, JSON.parse(revision.fields) as Fields, appId);
    return { status: 204 };
  },

  [OP.restoreToDraft]: ({ params, appId }, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    const revision = requireRevision(ctx.db, row, params.revisionId!);
    setDraft(ctx, row, JSON.parse(revision.fields) as Fields, appId);
    const updated = requireEmail(ctx.db, row.id);
    return { status: 200, body: render(updated, draftOf(updated)) };
  },

  [OP.clone]: ({ body, appId }: HubspotRequest<{ id: string; cloneName?: string; language?: string }>, ctx) => {
    const original = requireEmail(ctx.db, body.id);
    const fields = JSON.parse(original.live) as Fields;
    const clone = insertEmail(
      ctx,
      appId,
      { ...fields, name: body.cloneName ?? `${String(fields.name ?? '')} (clone)`, ...(body.language !== undefined && { language: body.language }) },
      'DRAFT',
      original.id,
    );
    return { status: 200, body: render(clone) };
  },

  [OP.createVariation]: ({ body, appId }: HubspotRequest<{ contentId: string; variationName: string }>, ctx) => {
    const master = requireEmail(ctx.db, body.contentId);
    if (master.ab_partner !== null) throw badRequest(`email ${master.id} already has an A/B variation (${master.ab_partner})`);
    const variation = insertEmail(ctx, appId, { ...(JSON.parse(master.live) as Fields), name: body.variationName });
    ctx.db.prepare("UPDATE marketing_emails SET ab_partner = ?, ab_role = 'master' WHERE id = ?").run(variation.id, master.id);
    ctx.db.prepare("UPDATE marketing_emails SET ab_partner = ?, ab_role = 'variant' WHERE id = ?").run(master.id, variation.id);
    return { status: 201, body: render(requireEmail(ctx.db, variation.id)) };
  },

  [OP.getVariation]: ({ params }, ctx) => {
    const row = requireEmail(ctx.db, params.emailId!);
    if (row.ab_partner === null) throw notFound(`A/B variation of email ${row.id}`);
    return { status: 200, body: render(requireEmail(ctx.db, row.ab_partner)) };
  },
};
