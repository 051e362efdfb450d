/**
 * Support issues: listed by creation window (at most 30 days, newest first), read and updated by id or
 * number, and given internal notes. An update checks that the state is one of Pylon's seven and that
 * the assignee and team exist.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { badRequest, notFound, ok, type Handler, type PylonRequest } from './context.js';
import { cursorKey, one, page, pageSize } from './paging.js';
import { requireTeam } from './teams.js';
import { requireUser, spread } from './users.js';

export const ISSUE_STATES = ['new', 'open', 'waiting_on_customer', 'waiting_on_you', 'on_hold', 'closed', 'snoozed'] as const;
export type IssueState = (typeof ISSUE_STATES)[number];

/** Pylon's limit on the window of GET /issues. */
export const MAX_WINDOW_MS = 30 * 86_400_000;

export interface IssueInput {
  title: string;
  body_html: string;
  /** Epoch milliseconds; default: the emulator's now. */
  created_at?: number;
  state?: IssueState;
  assignee_id?: string;
  team_id?: string;
  tags?: string[];
  requester_id?: string;
  account_id?: string;
  source?: 'slack' | 'microsoft_teams' | 'microsoft_teams_chat' | 'chat_widget' | 'email' | 'manual' | 'form' | 'discord';
}

interface IssueRow {
  id: string;
  number: number;
  title: string;
  body_html: string;
  state: string;
  source: string;
  tags: string;
  assignee_id: string | null;
  team_id: string | null;
  requester_id: string | null;
  account_id: string | null;
  custom_fields: string;
  customer_portal_visible: number;
  created_at: number;
  latest_message_at: number;
}

export function createIssueTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS issues (
      id TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE, title TEXT NOT NULL, body_html TEXT NOT NULL, state TEXT NOT NULL,
      source TEXT NOT NULL, tags TEXT NOT NULL, assignee_id TEXT, team_id TEXT, requester_id TEXT, account_id TEXT,
      custom_fields TEXT NOT NULL, customer_portal_visible INTEGER NOT NULL, created_at INTEGER NOT NULL, latest_message_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS issues_by_creation ON issues (created_at DESC, number DESC);
    CREATE TABLE IF NOT EXISTS issue_notes (
      id TEXT PRIMARY KEY, issue_id TEXT NOT NULL, body_html TEXT NOT NULL, author_id TEXT NOT NULL, created_at INTEGER NOT NULL
    );
  `);
}

export function addIssue(db: Database.Database, now: number, input: IssueInput) {
  if (input.assignee_id) requireUser(db, input.assignee_id);
  if (input.team_id) requireTeam(db, input.team_id);
  const { next } = db.prepare('SELECT COALESCE(MAX(number), 0) + 1 AS next FROM issues').get() as { next: number };
  const id = randomUUID();
  const created = input.created_at ?? now;
  db.prepare(
    `INSERT INTO issues (id, number, title, body_html, state, source, tags, assignee_id, team_id, requester_id, account_id, custom_fields, customer_portal_visible, created_at, latest_message_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', 0, ?, ?)`,
  ).run(
    id,
    next,
    input.title,
    input.body_html,
    input.state ?? 'new',
    input.source ?? 'email',
    JSON.stringify(input.tags ?? []),
    input.assignee_id ?? null,
    input.team_id ?? null,
    input.requester_id ?? null,
    input.account_id ?? null,
    created,
    created,
  );
  return renderIssue(db, requireIssue(db, id));
}

/** By id, or by number when the value is all digits (Pylon accepts either). */
function requireIssue(db: Database.Database, idOrNumber: string): IssueRow {
  const row = /^\d+$/.test(idOrNumber)
    ? (db.prepare('SELECT * FROM issues WHERE number = ?').get(Number(idOrNumber)) as IssueRow | undefined)
    : (db.prepare('SELECT * FROM issues WHERE id = ?').get(idOrNumber) as IssueRow | undefined);
  if (!row) throw notFound(`Issue ${idOrNumber}`);
  return row;
}

function renderIssue(db: Database.Database, row: IssueRow) {
  const assignee = row.assignee_id ? (db.prepare('SELECT id, email FROM users WHERE id = ?').get(row.assignee_id) as { id: string; email: string }) : undefined;
  const requester = row.requester_id
    ? (db.prepare('SELECT id, email FROM contacts WHERE id = ?').get(row.requester_id) as { id: string; email: string | null } | undefined)
    : undefined;
  return {
    id: row.id,
    number: row.number,
    title: row.title,
    body_html: row.body_html,
    state: row.state,
    source: row.source as NonNullable<IssueInput['source']>,
    type: 'Conversation' as const,
    tags: JSON.parse(row.tags) as string[],
    ...(assignee && { assignee }),
    ...(row.team_id && { team: { id: row.team_id } }),
    ...(requester && { requester: { id: requester.id, ...(requester.email && { email: requester.email }) } }),
    ...(row.account_id && { account: { id: row.account_id } }),
    custom_fields: JSON.parse(row.custom_fields) as Record<string, { slug: string; value?: string; values?: string[] }>,
    customer_portal_visible: row.customer_portal_visible === 1,
    attachment_urls: [],
    created_at: new Date(row.created_at).toISOString(),
    latest_message_time: new Date(row.latest_message_at).toISOString(),
    link: `https://app.usepylon.com/issues?issueNumber=${row.number}`,
  };
}

function time(query: Record<string, string | string[]>, name: string): number {
  // The table has checked the RFC 3339 format already.
  return Date.parse(one(query[name])!);
}

/** What UpdateIssue may change; an empty id clears the assignee or team. */
interface IssueChanges {
  state?: string;
  assignee_id?: string;
  team_id?: string;
  tags?: string[];
  account_id?: string;
  requester_id?: string;
  /** Pylon's older spelling, still accepted. */
  requestor_id?: string;
  customer_portal_visible?: boolean;
  custom_fields?: Array<{ slug: string; value?: string; values?: string[] }>;
}

export const issueHandlers: Record<string, Handler> = {
  GetIssues: ({ query }, { db }) => {
    const start = time(query, 'start_time');
    const end = time(query, 'end_time');
    if (end < start) throw badRequest('end_time must not be before start_time');
    if (end - start > MAX_WINDOW_MS) throw badRequest('The duration between start_time and end_time must be less than or equal to 30 days');
    const limit = pageSize(query, 100);
    const [createdAt, number] = cursorKey(query, 2) ?? [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    const rows = db
      .prepare(
        `SELECT * FROM issues WHERE created_at BETWEEN ? AND ? AND (created_at < ? OR (created_at = ? AND number < ?))
         ORDER BY created_at DESC, number DESC LIMIT ?`,
      )
      .all(start, end, createdAt, createdAt, number, limit + 1) as IssueRow[];
    return ok(
      ...spread(
        page(
          rows,
          limit,
          (row) => [row.created_at, row.number],
          (row) => renderIssue(db, row),
        ),
      ),
    );
  },

  GetIssue: ({ params }, { db }) => ok(renderIssue(db, requireIssue(db, params.id!))),

  UpdateIssue: ({ params, body }: PylonRequest<IssueChanges>, { db }) => {
    const row = requireIssue(db, params.id!);
    const changes: Record<string, unknown> = {};
    if (body.state !== undefined) {
      if (!(ISSUE_STATES as readonly string[]).includes(body.state)) throw badRequest(`state must be one of ${ISSUE_STATES.join(', ')}`);
      changes.state = body.state;
    }
    // An empty id clears the assignee or team.
    if (body.assignee_id !== undefined) changes.assignee_id = body.assignee_id === '' ? null : requireUser(db, body.assignee_id).id;
    if (body.team_id !== undefined) changes.team_id = body.team_id === '' ? null : requireTeam(db, body.team_id).id;
    if (body.tags !== undefined) changes.tags = JSON.stringify([...new Set(body.tags)]);
    if (body.account_id !== undefined) changes.account_id = body.account_id || null;
    const requester = body.requester_id ?? body.requestor_id;
    if (requester !== undefined) changes.requester_id = requester || null;
    if (body.customer_portal_visible !== undefined) changes.customer_portal_visible = body.customer_portal_visible ? 1 : 0;
    if (body.custom_fields !== undefined) {
      const fields = JSON.parse(row.custom_fields) as Record<string, unknown>;
      for (const field of body.custom_fields) fields[field.slug] = field;
      changes.custom_fields = JSON.stringify(fields);
    }
    const names = Object.keys(changes);
    if (names.length) {
      db.prepare(`UPDATE issues SET ${names.map((name) => `${name} = ?`).join(', ')} WHERE id = ?`).run(...Object.values(changes), row.id);
    }
    return ok(renderIssue(db, requireIssue(db, row.id)));
  },

  CreateIssueNote: ({ params, body, account }: PylonRequest<{ body_html: string; user_id?: string }>, { db, clock }) => {
    const issue = requireIssue(db, params.id!);
    const id = randomUUID();
    db.prepare('INSERT INTO issue_notes (id, issue_id, body_html, author_id, created_at) VALUES (?, ?, ?, ?, ?)').run(
      id,
      issue.id,
      body.body_html,
      body.user_id ? requireUser(db, body.user_id).id : account.id,
      clock.now(),
    );
    return ok({ id, issue_id: issue.id });
  },
};
