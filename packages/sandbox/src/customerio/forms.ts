/**
 * Form submissions. A form id Customer.io has not seen creates a form connection; the respondent is
 * identified by the `id` or `email` field (id first when both are there) and every other field
 * becomes one of their attributes.
 */
import type Database from 'better-sqlite3';
import { badRequest, unixNow, type Handler, type TrackContext, type TrackRequest } from './context.js';
import { identifyPerson } from './profiles.js';

export interface FormSubmission {
  person: string;
  fields: Record<string, string>;
  at: number;
}

export function createFormTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS forms (
      workspace INTEGER NOT NULL,
      form_id TEXT NOT NULL,
      connected_at INTEGER NOT NULL,
      PRIMARY KEY (workspace, form_id)
    );
    CREATE TABLE IF NOT EXISTS form_submissions (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      workspace INTEGER NOT NULL,
      form_id TEXT NOT NULL,
      person TEXT NOT NULL,
      fields TEXT NOT NULL,
      at INTEGER NOT NULL
    );
  `);
}

export function formIds({ db }: TrackContext, workspace: number): string[] {
  return (db.prepare('SELECT form_id FROM forms WHERE workspace = ? ORDER BY connected_at, rowid').all(workspace) as Array<{ form_id: string }>).map(
    (row) => row.form_id,
  );
}

export function submissionsTo({ db }: TrackContext, workspace: number, formId: string): FormSubmission[] {
  const rows = db.prepare('SELECT person, fields, at FROM form_submissions WHERE workspace = ? AND form_id = ? ORDER BY seq').all(workspace, formId) as Array<
    Omit<FormSubmission, 'fields'> & { fields: string }
  >;
  return rows.map((row) => ({ ...row, fields: JSON.parse(row.fields) as Record<string, string> }));
}

export const formHandlers: Record<string, Handler> = {
  submitForm: ({ params, body, workspace }: TrackRequest<{ data: Record<string, string | null> }>, ctx) => {
    const fields = body.data;
    const ref =
      typeof fields.id === 'string' && fields.id
        ? { kind: 'id' as const, value: fields.id }
        : typeof fields.email === 'string' && fields.email
          ? { kind: 'email' as const, value: fields.email }
          : undefined;
    if (!ref) throw badRequest('data must carry a non-empty id or email to identify the respondent', 'data');
    ctx.db.prepare('INSERT OR IGNORE INTO forms (workspace, form_id, connected_at) VALUES (?, ?, ?)').run(workspace, params.form_id, unixNow(ctx));
    const attributes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
    const person = identifyPerson(ctx, workspace, ref, { fields: attributes });
    if (person) {
      ctx.db
        .prepare('INSERT INTO form_submissions (workspace, form_id, person, fields, at) VALUES (?, ?, ?, ?, ?)')
        .run(workspace, params.form_id, person.cio_id, JSON.stringify(attributes), unixNow(ctx));
    }
    return { status: 204 };
  },
};
