/**
 * Manual segments and their members. Segments are made in Customer.io's UI or App API (here by the
 * emulator's owner); the Track API only adds and removes members of manual ones, at most 1000 per
 * request (the operation table holds that limit). Identifiers that match nobody are skipped, and so
 * are people without an id attribute, which these endpoints require.
 */
import type Database from 'better-sqlite3';
import { accepted, badRequest, notFound, type Handler, type TrackContext, type TrackRequest } from './context.js';
import { findPerson, type IdentifierKind } from './people.js';

export type SegmentType = 'manual' | 'data';

export function createSegmentTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS segments (
      segment_id INTEGER PRIMARY KEY AUTOINCREMENT,
      workspace INTEGER NOT NULL,
      name TEXT NOT NULL,
      type TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS segment_members (
      workspace INTEGER NOT NULL,
      segment_id INTEGER NOT NULL,
      person TEXT NOT NULL,
      PRIMARY KEY (segment_id, person),
      FOREIGN KEY (workspace, person) REFERENCES people (workspace, cio_id) ON DELETE CASCADE
    );
  `);
}

export function createSegment({ db }: TrackContext, workspace: number, name: string, type: SegmentType): number {
  return Number(db.prepare('INSERT INTO segments (workspace, name, type) VALUES (?, ?, ?)').run(workspace, name, type).lastInsertRowid);
}

export function membersOf({ db }: TrackContext, workspace: number, segmentId: number): string[] {
  return (
    db.prepare('SELECT person FROM segment_members WHERE workspace = ? AND segment_id = ? ORDER BY rowid').all(workspace, segmentId) as Array<{
      person: string;
    }>
  ).map((row) => row.person);
}

export function segmentsOf({ db }: TrackContext, workspace: number, person: string): number[] {
  return (
    db.prepare('SELECT segment_id FROM segment_members WHERE workspace = ? AND person = ? ORDER BY segment_id').all(workspace, person) as Array<{
      segment_id: number;
    }>
  ).map((row) => row.segment_id);
}

/** Merge: the primary joins the manual segments it was not in. */
export function mergeMemberships({ db }: TrackContext, workspace: number, secondary: string, primary: string): void {
  db.prepare(
    'INSERT OR IGNORE INTO segment_members (workspace, segment_id, person) SELECT workspace, segment_id, ? FROM segment_members WHERE workspace = ? AND person = ?',
  ).run(primary, workspace, secondary);
}

function manualSegment({ db }: TrackContext, workspace: number, segmentId: string): number {
  const segment = db.prepare('SELECT segment_id, type FROM segments WHERE workspace = ? AND segment_id = ?').get(workspace, Number(segmentId)) as
    | { segment_id: number; type: SegmentType }
    | undefined;
  if (!segment) throw notFound(`segment ${segmentId}`);
  if (segment.type !== 'manual') throw badRequest(`segment ${segmentId} is data-driven; only manual segments can be changed through the API`, 'segment_id');
  return segment.segment_id;
}

/** The people the listed identifiers name, skipping unknown ones and people without an id. */
function membersNamed(ctx: TrackContext, workspace: number, query: Record<string, string | string[]>, ids: string[]): string[] {
  const kind = (query.id_type ?? 'id') as IdentifierKind;
  return ids.flatMap((value) => {
    const person = findPerson(ctx, workspace, { kind, value });
    return person && person.id !== null ? [person.cio_id] : [];
  });
}

export const segmentHandlers: Record<string, Handler> = {
  add_to_segment: ({ params, query, body, workspace }: TrackRequest<{ ids: string[] }>, ctx) => {
    const segmentId = manualSegment(ctx, workspace, params.segment_id!);
    const insert = ctx.db.prepare('INSERT OR IGNORE INTO segment_members (workspace, segment_id, person) VALUES (?, ?, ?)');
    for (const person of membersNamed(ctx, workspace, query, body.ids)) insert.run(workspace, segmentId, person);
    return accepted;
  },
  remove_from_segment: ({ params, query, body, workspace }: TrackRequest<{ ids: string[] }>, ctx) => {
    const segmentId = manualSegment(ctx, workspace, params.segment_id!);
    const remove = ctx.db.prepare('DELETE FROM segment_members WHERE segment_id = ? AND person = ?');
    for (const person of membersNamed(ctx, workspace, query, body.ids)) remove.run(segmentId, person);
    return accepted;
  },
};
