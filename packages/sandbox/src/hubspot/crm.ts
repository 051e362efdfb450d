import type Database from 'better-sqlite3';

/**
 * The CRM records the marketing tools point at: contacts (by vid or email) and ILS lists.
 * HubSpot owns far more CRM than this; the emulator keeps only what marketing events reference.
 */

export interface Contact {
  vid: number;
  email: string;
  /** Contact properties other than email, such as firstname and lastname. */
  properties: Record<string, string>;
}

export interface List {
  listId: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

/** Seeds are dated at a fixed instant so that a fresh sandbox always looks the same. */
const SEEDED_AT = Date.UTC(2024, 0, 1);

/**
 * Seeded contacts, so a sandbox user can record attendance at once:
 *   1001 ada.lovelace@example.com, 1002 grace.hopper@example.com, 1003 alan.turing@example.com,
 *   1004 katherine.johnson@example.com, 1005 edsger.dijkstra@example.com.
 * Contacts created later get vids from 1006 up.
 */
const SEED_CONTACTS: Contact[] = [
  { vid: 1001, email: 'ada.lovelace@example.com', properties: { firstname: 'Ada', lastname: 'Lovelace' } },
  { vid: 1002, email: 'grace.hopper@example.com', properties: { firstname: 'Grace', lastname: 'Hopper' } },
  { vid: 1003, email: 'alan.turing@example.com', properties: { firstname: 'Alan', lastname: 'Turing' } },
  { vid: 1004, email: 'katherine.johnson@example.com', properties: { firstname: 'Katherine', lastname: 'Johnson' } },
  { vid: 1005, email: 'edsger.dijkstra@example.com', properties: { firstname: 'Edsger', lastname: 'Dijkstra' } },
];

/**
 * Seeded lists: "501" Webinar registrants, "502" Newsletter subscribers, "503" Customers.
 * Lists created later get ids from "504" up.
 */
const SEED_LISTS: Array<Pick<List, 'listId' | 'name'>> = [
  { listId: '501', name: 'Webinar registrants' },
  { listId: '502', name: 'Newsletter subscribers' },
  { listId: '503', name: 'Customers' },
];

/** Creates the contact and list tables if missing and puts the seed records in. Safe to call twice. */
export function createCrmTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS contacts (
      vid INTEGER PRIMARY KEY,
      email TEXT NOT NULL UNIQUE,
      properties TEXT NOT NULL DEFAULT '{}'
    );
    CREATE TABLE IF NOT EXISTS lists (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
  `);
  seedContacts(db);
  seedLists(db);
}

export function seedContacts(db: Database.Database, contacts: Contact[] = SEED_CONTACTS): void {
  const insert = db.prepare('INSERT OR IGNORE INTO contacts (vid, email, properties) VALUES (?, ?, ?)');
  for (const c of contacts) insert.run(c.vid, normalizeEmail(c.email), JSON.stringify(c.properties));
}

export function seedLists(db: Database.Database): void {
  const insert = db.prepare('INSERT OR IGNORE INTO lists (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)');
  for (const l of SEED_LISTS) insert.run(Number(l.listId), l.name, SEEDED_AT, SEEDED_AT);
}

interface ContactRow {
  vid: number;
  email: string;
  properties: string;
}

const toContact = (row: ContactRow): Contact => ({ vid: row.vid, email: row.email, properties: JSON.parse(row.properties) });

/** HubSpot treats email addresses case-insensitively; storing them lower-cased keeps lookups exact. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

export function getContact(db: Database.Database, vid: number): Contact | undefined {
  const row = db.prepare('SELECT * FROM contacts WHERE vid = ?').get(vid) as ContactRow | undefined;
  return row && toContact(row);
}

export function findContactByEmail(db: Database.Database, email: string): Contact | undefined {
  const row = db.prepare('SELECT * FROM contacts WHERE email = ?').get(normalizeEmail(email)) as ContactRow | undefined;
  return row && toContact(row);
}

/** A contact named by vid ("1001") or by email address, as the participation endpoints accept either. */
export function findContact(db: Database.Database, identifier: string): Contact | undefined {
  return /^\d+$/.test(identifier) ? getContact(db, Number(identifier)) : findContactByEmail(db, identifier);
}

export function createContact(db: Database.Database, email: string, properties: Record<string, string> = {}): Contact {
  // The email column is the one source of truth for the address.
  const { email: _ignored, ...rest } = properties;
  const result = db.prepare('INSERT INTO contacts (email, properties) VALUES (?, ?)').run(normalizeEmail(email), JSON.stringify(rest));
  return getContact(db, Number(result.lastInsertRowid))!;
}

interface ListRow {
  id: number;
  name: string;
  created_at: number;
  updated_at: number;
}

const toList = (row: ListRow): List => ({
  listId: String(row.id),
  name: row.name,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function getList(db: Database.Database, listId: string): List | undefined {
  if (!/^\d+$/.test(listId)) return undefined;
  const row = db.prepare('SELECT * FROM lists WHERE id = ?').get(Number(listId)) as ListRow | undefined;
  return row && toList(row);
}

export function createList(db: Database.Database, name: string, now: number): List {
  const result = db.prepare('INSERT INTO lists (name, created_at, updated_at) VALUES (?, ?, ?)').run(name, now, now);
  return getList(db, String(result.lastInsertRowid))!;
}

/**
 * A list as the HubSpot Lists API presents it. The emulator keeps no list membership or filters,
 * so every list reads as a static (MANUAL) contact list (object type 0-1) whose processing is done.
 */
export function publicList(list: List) {
  return {
    listId: list.listId,
    name: list.name,
    objectTypeId: '0-1',
    processingType: 'MANUAL',
    processingStatus: 'COMPLETE',
    listVersion: 1,
    createdAt: new Date(list.createdAt).toISOString(),
    updatedAt: new Date(list.updatedAt).toISOString(),
  };
}
