/**
 * People: identifiers (id, email, cio_id), attributes, suppression, and the identify rules.
 *
 * A path identifier that starts with `cio_` names a cio_id, one that is an email address names an
 * email (compared case-insensitively), anything else an id. Rows that belong to a person (devices,
 * events, memberships, journeys, relationships) reference it with ON DELETE CASCADE, so deleting a
 * person deletes them too.
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { recordActivity } from './activities.js';
import type { TrackContext } from './context.js';

export type IdentifierKind = 'id' | 'email' | 'cio_id';

export interface PersonRef {
  kind: IdentifierKind;
  value: string;
}

export interface Person {
  cio_id: string;
  id: string | null;
  email: string | null;
  attributes: Record<string, unknown>;
  created_at: number;
  updated_at: number;
}

export function createPeopleTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS people (
      workspace INTEGER NOT NULL,
      cio_id TEXT NOT NULL,
      id TEXT,
      email TEXT,
      attributes TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (workspace, cio_id)
    );
    CREATE UNIQUE INDEX IF NOT EXISTS people_by_id ON people (workspace, id) WHERE id IS NOT NULL;
    CREATE UNIQUE INDEX IF NOT EXISTS people_by_email ON people (workspace, lower(email)) WHERE email IS NOT NULL;
    CREATE TABLE IF NOT EXISTS suppressions (
      workspace INTEGER NOT NULL,
      kind TEXT NOT NULL,
      value TEXT NOT NULL,
      -- The identifiers suppressed together (one person's id, email and cio_id) are freed together.
      grouping TEXT NOT NULL,
      PRIMARY KEY (workspace, kind, value)
    );
  `);
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** What a path identifier names. */
export function pathRef(identifier: string): PersonRef {
  if (identifier.startsWith('cio_')) return { kind: 'cio_id', value: identifier.slice(4) };
  return { kind: EMAIL.test(identifier) ? 'email' : 'id', value: identifier };
}

/** What an identifier object (`{id}`, `{email}` or `{cio_id}`) names. */
export function objectRef(identifiers: Record<string, unknown>): PersonRef {
  for (const kind of ['cio_id', 'id', 'email'] as const) {
    const value = identifiers[kind];
    if (typeof value === 'string') return { kind, value };
  }
  throw new Error('identifier object without id, email or cio_id');
}

/** Suppressed emails are kept lower-cased, as people's emails are compared. */
const normal = ({ kind, value }: PersonRef): string => (kind === 'email' ? value.toLowerCase() : value);

type Row = Omit<Person, 'attributes'> & { attributes: string };
const toPerson = (row: Row | undefined): Person | undefined => row && { ...row, attributes: JSON.parse(row.attributes) as Record<string, unknown> };

const COLUMNS = 'cio_id, id, email, attributes, created_at, updated_at';

export function findPerson({ db }: TrackContext, workspace: number, ref: PersonRef): Person | undefined {
  const where = ref.kind === 'email' ? 'lower(email) = ?' : `${ref.kind} = ?`;
  return toPerson(db.prepare(`SELECT ${COLUMNS} FROM people WHERE workspace = ? AND ${where}`).get(workspace, normal(ref)) as Row | undefined);
}

export function allPeople({ db }: TrackContext, workspace: number): Person[] {
  return (db.prepare(`SELECT ${COLUMNS} FROM people WHERE workspace = ? ORDER BY created_at, rowid`).all(workspace) as Row[]).map((row) => toPerson(row)!);
}

export function isSuppressed({ db }: TrackContext, workspace: number, ref: PersonRef): boolean {
  return db.prepare('SELECT 1 FROM suppressions WHERE workspace = ? AND kind = ? AND value = ?').get(workspace, ref.kind, normal(ref)) !== undefined;
}

export function suppressIdentifiers({ db }: TrackContext, workspace: number, refs: PersonRef[]): void {
  const grouping = randomBytes(8).toString('hex');
  const insert = db.prepare('INSERT OR REPLACE INTO suppressions (workspace, kind, value, grouping) VALUES (?, ?, ?, ?)');
  for (const ref of refs) insert.run(workspace, ref.kind, normal(ref), grouping);
}

/** Frees the identifier and those suppressed with it; true when it was suppressed. */
export function unsuppressIdentifier({ db }: TrackContext, workspace: number, ref: PersonRef): boolean {
  const row = db.prepare('SELECT grouping FROM suppressions WHERE workspace = ? AND kind = ? AND value = ?').get(workspace, ref.kind, normal(ref)) as
    | { grouping: string }
    | undefined;
  if (!row) return false;
  db.prepare('DELETE FROM suppressions WHERE workspace = ? AND grouping = ?').run(workspace, row.grouping);
  return true;
}

/** The identifiers a person can be referenced by. */
export function refsOf(person: Person): PersonRef[] {
  const refs: PersonRef[] = [{ kind: 'cio_id', value: person.cio_id }];
  if (person.id !== null) refs.push({ kind: 'id', value: person.id });
  if (person.email !== null) refs.push({ kind: 'email', value: person.email });
  return refs;
}

function createPerson(ctx: TrackContext, workspace: number, identifiers: { id?: string; email?: string }): Person {
  const now = Math.floor(ctx.clock.now() / 1000);
  const cioId = randomBytes(6).toString('hex');
  ctx.db
    .prepare('INSERT INTO people (workspace, cio_id, id, email, attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(workspace, cioId, identifiers.id ?? null, identifiers.email ?? null, '{}', now, now);
  return findPerson(ctx, workspace, { kind: 'cio_id', value: cioId })!;
}

export function savePerson(ctx: TrackContext, workspace: number, person: Person): void {
  ctx.db
    .prepare('UPDATE people SET id = ?, email = ?, attributes = ?, updated_at = ? WHERE workspace = ? AND cio_id = ?')
    .run(person.id, person.email, JSON.stringify(person.attributes), Math.floor(ctx.clock.now() / 1000), workspace, person.cio_id);
}

export function deletePerson(ctx: TrackContext, workspace: number, person: Person): void {
  ctx.db.prepare('DELETE FROM people WHERE workspace = ? AND cio_id = ?').run(workspace, person.cio_id);
}

/**
 * The person a call about `ref` concerns, created when it is new (events and devices create people as
 * identify does). Nobody when the identifier is suppressed, or is a cio_id that belongs to no one.
 */
export function personFor(ctx: TrackContext, workspace: number, ref: PersonRef): Person | undefined {
  if (isSuppressed(ctx, workspace, ref)) return undefined;
  const known = findPerson(ctx, workspace, ref);
  if (known || ref.kind === 'cio_id') return known;
  return createPerson(ctx, workspace, { [ref.kind]: ref.value });
}

/** Attribute values; an empty string (or null) removes the attribute. */
export function setAttributes(person: Person, attributes: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === '' || value === null) delete person.attributes[name];
    else person.attributes[name] = value;
  }
}

export interface IdentifyInput {
  /** The body's id and email, which may set or change the person's identifiers. */
  id?: string;
  email?: string;
  attributes: Record<string, unknown>;
  /** Only update an existing person (`_update: true`). */
  updateOnly?: boolean;
}

/**
 * Adds or updates a person as Customer.io's identify does, and answers the person (undefined when the
 * call was dropped: a suppressed identifier, an unknown cio_id, or `_update` for someone new).
 *
 * The path identifier finds the person; when it finds nobody, an identifier in the body that belongs
 * to someone makes that the person, who then gains the path identifier. An identifier in the body
 * changes the person's only if no one else holds it and the reference allows it: by cio_id anything,
 * by id the email, by email an id not yet set. Otherwise the other attributes still apply and the
 * workspace's activity log gets an Attribute Update Failure for the identifier.
 */
export function identify(ctx: TrackContext, workspace: number, ref: PersonRef, input: IdentifyInput): Person | undefined {
  const bodyRefs: PersonRef[] = [];
  if (input.id !== undefined) bodyRefs.push({ kind: 'id', value: input.id });
  if (input.email !== undefined) bodyRefs.push({ kind: 'email', value: input.email });
  if ([ref, ...bodyRefs].some((each) => isSuppressed(ctx, workspace, each))) return undefined;

  let person = findPerson(ctx, workspace, ref);
  const failures: Array<{ attribute: IdentifierKind; value: string; reason: string; conflicting_cio_id?: string }> = [];
  if (!person) {
    if (ref.kind === 'cio_id') return undefined;
    const named = bodyRefs
      .filter((each) => each.kind !== ref.kind)
      .map((each) => findPerson(ctx, workspace, each))
      .find(Boolean);
    if (named) {
      person = named;
      const slot = ref.kind as 'id' | 'email';
      if (person[slot] === null) person[slot] = ref.value;
      else
        failures.push({
          attribute: ref.kind,
          value: ref.value,
          reason: `the person found by ${ref.kind === 'id' ? 'email' : 'id'} already has another ${ref.kind}`,
        });
    } else if (input.updateOnly) {
      return undefined;
    } else {
      person = createPerson(ctx, workspace, { [ref.kind]: ref.value });
    }
  }

  for (const each of bodyRefs) {
    const slot = each.kind as 'id' | 'email';
    const current = person[slot];
    if (current !== null && normal({ kind: slot, value: current }) === normal(each)) continue;
    const holder = findPerson(ctx, workspace, each);
    if (holder && holder.cio_id !== person.cio_id) {
      failures.push({ attribute: slot, value: each.value, reason: `${slot} already belongs to another person`, conflicting_cio_id: holder.cio_id });
      continue;
    }
    const allowed = ref.kind === 'cio_id' || (slot === 'email' && ref.kind === 'id') || current === null;
    if (!allowed) {
      failures.push({ attribute: slot, value: each.value, reason: `${slot} can only be changed by referencing the person by cio_id` });
      continue;
    }
    person[slot] = each.value;
  }

  setAttributes(person, input.attributes);
  savePerson(ctx, workspace, person);
  for (const failure of failures) recordActivity(ctx, workspace, 'failed_attribute_change', person.cio_id, { name: 'Attribute Update Failure', ...failure });
  return findPerson(ctx, workspace, { kind: 'cio_id', value: person.cio_id });
}
