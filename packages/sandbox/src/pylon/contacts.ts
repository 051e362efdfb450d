/** Contacts: the customers' people. Listed a page at a time, or searched with a filter. */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { badRequest, ok, type Handler, type PylonRequest } from './context.js';
import { checkFilter, matches, type ContactFields, type Filter } from './contact-filter.js';
import { cursorKey, page, pageSize } from './paging.js';
import { spread } from './users.js';

export interface ContactInput {
  name: string;
  email?: string;
  emails?: string[];
  account_id?: string;
  portal_role?: 'no_access' | 'member' | 'admin';
}

interface ContactRow {
  seq: number;
  id: string;
  name: string;
  email: string | null;
  emails: string;
  account_id: string | null;
  portal_role: string;
}

export function createContactTables(db: Database.Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS contacts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, email TEXT,
    emails TEXT NOT NULL, account_id TEXT, portal_role TEXT NOT NULL)`);
}

export function addContact(db: Database.Database, input: ContactInput) {
  const id = randomUUID();
  const emails = [...new Set([input.email, ...(input.emails ?? [])].filter((email): email is string => !!email))];
  db.prepare('INSERT INTO contacts (id, name, email, emails, account_id, portal_role) VALUES (?, ?, ?, ?, ?, ?)').run(
    id,
    input.name,
    input.email ?? null,
    JSON.stringify(emails),
    input.account_id ?? null,
    input.portal_role ?? 'member',
  );
  return renderContact(db.prepare('SELECT * FROM contacts WHERE id = ?').get(id) as ContactRow);
}

function renderContact(row: ContactRow) {
  return {
    id: row.id,
    name: row.name,
    ...(row.email !== null && { email: row.email }),
    emails: JSON.parse(row.emails) as string[],
    ...(row.account_id !== null && { account: { id: row.account_id } }),
    portal_role: row.portal_role as 'no_access' | 'member' | 'admin',
    custom_fields: {},
  };
}

const fieldsOf = (row: ContactRow): ContactFields => ({
  id: row.id,
  name: row.name,
  email: row.email,
  emails: JSON.parse(row.emails) as string[],
  account_id: row.account_id,
});

export const contactHandlers: Record<string, Handler> = {
  GetContacts: ({ query }, { db }) => {
    const after = cursorKey(query, 1)?.[0] ?? 0;
    const limit = pageSize(query, 20);
    const rows = db.prepare('SELECT * FROM contacts WHERE seq > ? ORDER BY seq LIMIT ?').all(after, limit + 1) as ContactRow[];
    return ok(...spread(page(rows, limit, (row) => [row.seq], renderContact)));
  },
  SearchContacts: ({ body }: PylonRequest<{ filter: Filter; limit?: number; cursor?: string }>, { db }) => {
    const { filter } = body;
    checkFilter(filter);
    const limit = body.limit ?? 100;
    if (limit < 1 || limit > 1000) throw badRequest(`limit must be between 1 and 1000, got ${limit}`);
    const after = (body.cursor ? cursorKey({ cursor: body.cursor }, 1)?.[0] : undefined) ?? 0;
    const found: ContactRow[] = [];
    for (const row of db.prepare('SELECT * FROM contacts WHERE seq > ? ORDER BY seq').iterate(after) as Iterable<ContactRow>) {
      if (!matches(filter, fieldsOf(row))) continue;
      found.push(row);
      if (found.length > limit) break;
    }
    return ok(...spread(page(found, limit, (row) => [row.seq], renderContact)));
  },
};
