/**
 * Marketing forms: create, read, list, replace (PUT), merge (PATCH) and archive, plus the submissions
 * that feed campaign reports. An archived form accepts no submissions and is deleted for good three
 * calendar months after it was archived, measured on the emulator's clock.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { badRequest, HubspotError, notFound, type Handler, type HubspotContext, type HubspotRequest } from './context.js';
import { createContact, findContactByEmail } from './crm.js';
import { page } from './paging.js';
import { boolean, texts } from './query.js';
import { addMonths, iso } from './time.js';

/** Spec part 8: "3 months, then permanent deletion" — calendar months, not 90 days. */
const RETENTION_MONTHS = 3;

const FORM_TYPES = ['hubspot', 'captured', 'flow', 'blog_comment', 'all'];

export interface FormRow {
  id: string;
  definition: string;
  created_at: number;
  updated_at: number;
  archived_at: number | null;
}

/** What a client defines; id, timestamps and the archived flag are the emulator's to keep. */
type Definition = Record<string, unknown> & { fieldGroups?: Array<{ fields?: Array<{ name?: string; required?: boolean }> }> };

export interface FormSubmission {
  submissionId: number;
  /** The contact the submission was filed under, when it carried an email field. */
  contactVid?: number;
}

export function createFormTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS forms (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      definition TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      archived_at INTEGER,
      delete_at INTEGER
    );
    CREATE TABLE IF NOT EXISTS form_submissions (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      form_id TEXT NOT NULL,
      contact_vid INTEGER,
      fields TEXT NOT NULL,
      submitted_at INTEGER NOT NULL
    );
  `);
}

/** Deletes the archived forms whose retention ran out; every read goes through here first. */
function purgeExpired({ db, clock }: HubspotContext): void {
  const expired = db.prepare('SELECT id FROM forms WHERE delete_at <= ?').all(clock.now()) as Array<{ id: string }>;
  for (const { id } of expired) {
    db.prepare('DELETE FROM form_submissions WHERE form_id = ?').run(id);
    db.prepare('DELETE FROM forms WHERE id = ?').run(id);
  }
}

export function findForm(ctx: HubspotContext, id: string): FormRow | undefined {
  purgeExpired(ctx);
  return ctx.db.prepare('SELECT id, definition, created_at, updated_at, archived_at FROM forms WHERE id = ?').get(id) as FormRow | undefined;
}

/** An active form, or an archived one when the caller asked for archived forms too. */
function requireForm(ctx: HubspotContext, id: string, includeArchived = false): FormRow {
  const row = findForm(ctx, id);
  if (!row || (row.archived_at !== null && !includeArchived)) throw notFound(`form ${id}`);
  return row;
}

function render(row: FormRow) {
  return {
    ...(JSON.parse(row.definition) as Definition),
    id: row.id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    archived: row.archived_at !== null,
    ...(row.archived_at !== null && { archivedAt: iso(row.archived_at) }),
  };
}

function definitionOf(body: Record<string, unknown>): Definition {
  const { id: _id, createdAt: _created, updatedAt: _updated, archived: _archived, archivedAt: _archivedAt, ...definition } = body;
  return definition;
}

/** Archiving starts the retention clock; un-archiving (PATCH archived=false) stops it. */
function setArchived({ db, clock }: HubspotContext, id: string, archived: boolean): void {
  const now = clock.now();
  if (archived) {
    db.prepare('UPDATE forms SET archived_at = ?, delete_at = ? WHERE id = ? AND archived_at IS NULL').run(now, addMonths(now, RETENTION_MONTHS), id);
  } else {
    db.prepare('UPDATE forms SET archived_at = NULL, delete_at = NULL WHERE id = ?').run(id);
  }
}

function save(ctx: HubspotContext, id: string, definition: Definition, archived: unknown): FormRow {
  ctx.db.prepare('UPDATE forms SET definition = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(definition), ctx.clock.now(), id);
  if (typeof archived === 'boolean') setArchived(ctx, id, archived);
  return findForm(ctx, id)!;
}

const fieldsOf = (definition: Definition) => (definition.fieldGroups ?? []).flatMap((group) => group.fields ?? []);

/**
 * Files a submission as HubSpot's submission endpoint would: only to an active form, only fields the
 * form has, every required field present. An email field files it under that contact (created if new).
 */
export function submitForm(ctx: HubspotContext, formId: string, fields: Record<string, string>): FormSubmission {
  const row = findForm(ctx, formId);
  if (!row) throw notFound(`form ${formId}`);
  if (row.archived_at !== null) throw new HubspotError(400, 'VALIDATION_ERROR', `form ${formId} is archived and accepts no submissions`);
  const formFields = fieldsOf(JSON.parse(row.definition) as Definition);
  const known = new Set(formFields.map((field) => field.name));
  for (const name of Object.keys(fields)) {
    if (!known.has(name)) throw badRequest(`form ${formId} has no field '${name}'`);
  }
  for (const field of formFields) {
    if (field.required && field.name && !fields[field.name]) throw badRequest(`field '${field.name}' is required`);
  }
  const { email, ...properties } = fields;
  const contact = email ? (findContactByEmail(ctx.db, email) ?? createContact(ctx.db, email, properties)) : undefined;
  const result = ctx.db
    .prepare('INSERT INTO form_submissions (form_id, contact_vid, fields, submitted_at) VALUES (?, ?, ?, ?)')
    .run(formId, contact?.vid ?? null, JSON.stringify(fields), ctx.clock.now());
  return { submissionId: Number(result.lastInsertRowid), ...(contact && { contactVid: contact.vid }) };
}

export interface SubmissionRecord {
  formId: string;
  contactVid: number | null;
  submittedAt: number;
}

/** Submissions to any of the given forms, oldest first. */
export function submissionsTo(ctx: HubspotContext, formIds: string[]): SubmissionRecord[] {
  purgeExpired(ctx);
  if (formIds.length === 0) return [];
  return ctx.db
    .prepare(
      `SELECT form_id AS formId, contact_vid AS contactVid, submitted_at AS submittedAt FROM form_submissions WHERE form_id IN (${formIds.map(() => '?').join(', ')}) ORDER BY id`,
    )
    .all(...formIds) as SubmissionRecord[];
}

/** Every submission, oldest first: first and last touches are judged across all forms. */
export function allSubmissions(ctx: HubspotContext): SubmissionRecord[] {
  purgeExpired(ctx);
  return ctx.db
    .prepare('SELECT form_id AS formId, contact_vid AS contactVid, submitted_at AS submittedAt FROM form_submissions ORDER BY id')
    .all() as SubmissionRecord[];
}

export const formName = (row: FormRow): string => String((JSON.parse(row.definition) as Definition).name ?? '');

const OP = {
  create: 'post-/marketing/v3/forms/_create',
  get: 'get-/marketing/v3/forms/{formId}_getById',
  list: 'get-/marketing/v3/forms/_getPage',
  replace: 'put-/marketing/v3/forms/{formId}_replace',
  update: 'patch-/marketing/v3/forms/{formId}_update',
  archive: 'delete-/marketing/v3/forms/{formId}_archive',
};

/** A form as the API takes it: its definition, with the id (on replace) and the archived flag beside it. */
type FormInput = Record<string, unknown> & { id?: string; archived?: boolean };

export const formHandlers: Record<string, Handler> = {
  [OP.create]: ({ body }: HubspotRequest<FormInput>, ctx) => {
    const id = randomUUID();
    const now = ctx.clock.now();
    ctx.db.prepare('INSERT INTO forms (id, definition, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, JSON.stringify(definitionOf(body)), now, now);
    if (body.archived === true) setArchived(ctx, id, true);
    return { status: 201, body: render(findForm(ctx, id)!) };
  },

  [OP.get]: ({ params, query }, ctx) => ({ status: 200, body: render(requireForm(ctx, params.formId!, boolean(query, 'archived') === true)) }),

  [OP.list]: ({ query }, ctx) => {
    purgeExpired(ctx);
    const formTypes = texts(query, 'formTypes');
    for (const type of formTypes ?? []) {
      if (!FORM_TYPES.includes(type))
        throw badRequest(`formTypes must be among: ${FORM_TYPES.join(', ')}`, [{ message: `unknown form type '${type}'`, in: 'query', code: 'INVALID_VALUE' }]);
    }
    // Every form this emulator makes is a HubSpot form.
    const wanted = !formTypes || formTypes.includes('hubspot') || formTypes.includes('all');
    const archived = boolean(query, 'archived') === true;
    const rows = wanted
      ? (ctx.db
          .prepare(`SELECT id, definition, created_at, updated_at, archived_at FROM forms WHERE archived_at IS ${archived ? 'NOT NULL' : 'NULL'} ORDER BY seq`)
          .all() as FormRow[])
      : [];
    return { status: 200, body: page(rows.map(render), query, 20) };
  },

  [OP.replace]: ({ params, body }: HubspotRequest<FormInput>, ctx) => {
    const row = requireForm(ctx, params.formId!, true);
    if (body.id !== row.id)
      throw badRequest(`id must be the form id in the path (${row.id})`, [{ message: 'id does not match the path', in: 'body', code: 'INVALID_VALUE' }]);
    return { status: 200, body: render(save(ctx, row.id, definitionOf(body), body.archived)) };
  },

  [OP.update]: ({ params, body }: HubspotRequest<FormInput>, ctx) => {
    const row = requireForm(ctx, params.formId!, true);
    const merged = { ...(JSON.parse(row.definition) as Definition), ...definitionOf(body) };
    return { status: 200, body: render(save(ctx, row.id, merged, body.archived)) };
  },

  [OP.archive]: ({ params }, ctx) => {
    const row = requireForm(ctx, params.formId!, true);
    setArchived(ctx, row.id, true);
    return { status: 204 };
  },
};
