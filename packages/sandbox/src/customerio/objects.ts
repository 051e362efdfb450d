/**
 * Objects (companies, accounts, ...: any object type) and their relationships to people. An object
 * is named by object_type_id and object_id, or by the cio_object_id Customer.io gives it. A
 * relationship to an anonymous visitor waits for the person later identified with that anonymous_id.
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { notFound, type TrackContext } from './context.js';

export interface ObjectIdentifiers {
  object_type_id?: string;
  object_id?: string;
  cio_object_id?: string;
}

export interface TrackedObject {
  object_type_id: string;
  object_id: string;
  cio_object_id: string;
  attributes: Record<string, unknown>;
}

export interface Relationship {
  object_type_id: string;
  object_id: string;
  attributes: Record<string, unknown>;
}

export function createObjectTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS objects (
      workspace INTEGER NOT NULL,
      object_type_id TEXT NOT NULL,
      object_id TEXT NOT NULL,
      cio_object_id TEXT NOT NULL UNIQUE,
      attributes TEXT NOT NULL,
      PRIMARY KEY (workspace, object_type_id, object_id)
    );
    CREATE TABLE IF NOT EXISTS relationships (
      workspace INTEGER NOT NULL,
      object_type_id TEXT NOT NULL,
      object_id TEXT NOT NULL,
      person TEXT,
      anonymous_id TEXT,
      attributes TEXT NOT NULL,
      UNIQUE (workspace, object_type_id, object_id, person),
      UNIQUE (workspace, object_type_id, object_id, anonymous_id),
      FOREIGN KEY (workspace, object_type_id, object_id) REFERENCES objects (workspace, object_type_id, object_id) ON DELETE CASCADE,
      FOREIGN KEY (workspace, person) REFERENCES people (workspace, cio_id) ON DELETE CASCADE
    );
  `);
}

type Row = Omit<TrackedObject, 'attributes'> & { attributes: string };
const toObject = (row: Row | undefined): TrackedObject | undefined => row && { ...row, attributes: JSON.parse(row.attributes) as Record<string, unknown> };

export function findObject({ db }: TrackContext, workspace: number, identifiers: ObjectIdentifiers): TrackedObject | undefined {
  const row = identifiers.cio_object_id
    ? db.prepare('SELECT * FROM objects WHERE workspace = ? AND cio_object_id = ?').get(workspace, identifiers.cio_object_id)
    : db
        .prepare('SELECT * FROM objects WHERE workspace = ? AND object_type_id = ? AND object_id = ?')
        .get(workspace, identifiers.object_type_id, identifiers.object_id);
  return toObject(row as Row | undefined);
}

/** The object, created when it is named by type and id and does not exist; a cio_object_id must exist. */
export function objectFor(ctx: TrackContext, workspace: number, identifiers: ObjectIdentifiers): TrackedObject {
  const known = findObject(ctx, workspace, identifiers);
  if (known) return known;
  if (identifiers.cio_object_id) throw notFound(`object ${identifiers.cio_object_id}`);
  ctx.db
    .prepare('INSERT INTO objects (workspace, object_type_id, object_id, cio_object_id, attributes) VALUES (?, ?, ?, ?, ?)')
    .run(workspace, identifiers.object_type_id, identifiers.object_id, randomBytes(6).toString('hex'), '{}');
  return findObject(ctx, workspace, identifiers)!;
}

export function setObjectAttributes(ctx: TrackContext, workspace: number, object: TrackedObject, attributes: Record<string, unknown>): void {
  const merged = { ...object.attributes };
  for (const [name, value] of Object.entries(attributes)) {
    if (value === '' || value === null) delete merged[name];
    else merged[name] = value;
  }
  ctx.db.prepare('UPDATE objects SET attributes = ? WHERE workspace = ? AND cio_object_id = ?').run(JSON.stringify(merged), workspace, object.cio_object_id);
}

export function deleteObject(ctx: TrackContext, workspace: number, identifiers: ObjectIdentifiers): void {
  const object = findObject(ctx, workspace, identifiers);
  if (object) ctx.db.prepare('DELETE FROM objects WHERE workspace = ? AND cio_object_id = ?').run(workspace, object.cio_object_id);
}

type Member = { person: string } | { anonymousId: string };

export function relate(ctx: TrackContext, workspace: number, object: TrackedObject, member: Member, attributes: Record<string, unknown> = {}): void {
  const [column, value] = 'person' in member ? ['person', member.person] : ['anonymous_id', member.anonymousId];
  ctx.db
    .prepare(
      `INSERT INTO relationships (workspace, object_type_id, object_id, ${column}, attributes) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (workspace, object_type_id, object_id, ${column}) DO UPDATE SET attributes = excluded.attributes`,
    )
    .run(workspace, object.object_type_id, object.object_id, value, JSON.stringify(attributes));
}

export function unrelate(ctx: TrackContext, workspace: number, object: TrackedObject, person: string): void {
  ctx.db
    .prepare('DELETE FROM relationships WHERE workspace = ? AND object_type_id = ? AND object_id = ? AND person = ?')
    .run(workspace, object.object_type_id, object.object_id, person);
}

/** The visitor's waiting relationships become the person's. */
export function linkAnonymousRelationships({ db }: TrackContext, workspace: number, anonymousId: string, person: string): void {
  db.prepare('UPDATE OR IGNORE relationships SET person = ?, anonymous_id = NULL WHERE workspace = ? AND anonymous_id = ?').run(person, workspace, anonymousId);
}

export function relationshipsOf({ db }: TrackContext, workspace: number, person: string): Relationship[] {
  const rows = db
    .prepare('SELECT object_type_id, object_id, attributes FROM relationships WHERE workspace = ? AND person = ? ORDER BY object_type_id, object_id')
    .all(workspace, person) as Array<Omit<Relationship, 'attributes'> & { attributes: string }>;
  return rows.map((row) => ({ ...row, attributes: JSON.parse(row.attributes) as Record<string, unknown> }));
}

export function objectsOf({ db }: TrackContext, workspace: number): TrackedObject[] {
  return (db.prepare('SELECT * FROM objects WHERE workspace = ? ORDER BY object_type_id, object_id').all(workspace) as Row[]).map((row) => toObject(row)!);
}

/** Merge: the primary gains the relationships it did not have. */
export function mergeRelationships({ db }: TrackContext, workspace: number, secondary: string, primary: string): void {
  db.prepare(
    'INSERT OR IGNORE INTO relationships (workspace, object_type_id, object_id, person, attributes) SELECT workspace, object_type_id, object_id, ?, attributes FROM relationships WHERE workspace = ? AND person = ?',
  ).run(primary, workspace, secondary);
}
