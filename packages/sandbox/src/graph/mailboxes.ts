/**
 * Mailboxes: each bearer token is a user with a mailbox, created on first sight; tests and the sandbox can
 * create one with a chosen name and address. A user's profile and mailbox settings are served by /me.
 */
import type Database from 'better-sqlite3';
import { GraphError, type GraphContext, type Handler, type Mailbox } from './context.js';
import { folderId, userId } from './ids.js';
import { select } from './odata.js';

export interface MailboxProfile {
  displayName: string;
  mail: string;
  givenName?: string;
  surname?: string;
  jobTitle?: string;
  officeLocation?: string;
  mobilePhone?: string;
  preferredLanguage?: string;
}

/** The distinguished folders every mailbox has; `starred` is not a folder (it lists flagged messages). */
export const WELL_KNOWN_FOLDERS: Record<string, string> = {
  inbox: 'Inbox',
  drafts: 'Drafts',
  sentitems: 'Sent Items',
  deleteditems: 'Deleted Items',
  junkemail: 'Junk Email',
  archive: 'Archive',
  outbox: 'Outbox',
  tasks: 'Tasks',
};

export const defaultSettings = (timeZone = 'UTC') => ({
  archiveFolder: '',
  automaticRepliesSetting: {
    status: 'disabled',
    externalAudience: 'all',
    internalReplyMessage: '',
    externalReplyMessage: '',
    scheduledStartDateTime: { dateTime: '2025-01-01T00:00:00.0000000', timeZone: 'UTC' },
    scheduledEndDateTime: { dateTime: '2025-01-02T00:00:00.0000000', timeZone: 'UTC' },
  },
  dateFormat: 'yyyy-MM-dd',
  timeFormat: 'HH:mm',
  timeZone,
  language: { locale: 'en-US', displayName: 'English (United States)' },
  workingHours: {
    daysOfWeek: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
    startTime: '09:00:00.0000000',
    endTime: '17:00:00.0000000',
    timeZone: { name: timeZone },
  },
  userPurpose: 'user',
  delegateMeetingMessageDeliveryOptions: 'sendToDelegateOnly',
});

interface MailboxRow {
  id: string;
  mail: string;
  profile: string;
  settings: string;
}

/**
 * Graph's 401s, code InvalidAuthenticationToken: "Access token is empty." without one; for one it did
 * not issue, what its token validation says of an opaque string (it expects a JWT).
 */
export const unauthorized = (token: string | undefined) =>
  new GraphError(
    401,
    'InvalidAuthenticationToken',
    token === undefined ? 'Access token is empty.' : 'IDX14100: JWT is not well formed, there are no dots (.).',
  );

export function createMailbox(db: Database.Database, token: string, profile: MailboxProfile): Mailbox {
  const id = userId();
  db.prepare('INSERT INTO mailboxes (id, token, mail, profile, settings) VALUES (?, ?, ?, ?, ?)').run(
    id,
    token,
    profile.mail,
    JSON.stringify(profile),
    JSON.stringify(defaultSettings()),
  );
  const insert = db.prepare('INSERT INTO folders (id, mailbox_id, well_known, display_name) VALUES (?, ?, ?, ?)');
  for (const [name, displayName] of Object.entries(WELL_KNOWN_FOLDERS)) insert.run(folderId(), id, name, displayName);
  return { id, displayName: profile.displayName, mail: profile.mail };
}

export function mailboxFor(db: Database.Database, token: string): Mailbox {
  const row = db.prepare('SELECT id, mail, profile FROM mailboxes WHERE token = ?').get(token) as MailboxRow | undefined;
  if (row) return { id: row.id, mail: row.mail, displayName: (JSON.parse(row.profile) as MailboxProfile).displayName };
  const n = (db.prepare('SELECT COUNT(*) FROM mailboxes').pluck().get() as number) + 1;
  return createMailbox(db, token, { displayName: `User ${n}`, givenName: 'User', surname: String(n), mail: `user${n}@contoso.example` });
}

export const mailboxByAddress = (db: Database.Database, address: string): Mailbox | undefined => {
  const row = db.prepare('SELECT id, mail, profile FROM mailboxes WHERE mail = ?').get(address) as MailboxRow | undefined;
  return row && { id: row.id, mail: row.mail, displayName: (JSON.parse(row.profile) as MailboxProfile).displayName };
};

export function settingsOf(db: Database.Database, mailboxId: string): ReturnType<typeof defaultSettings> {
  return JSON.parse(db.prepare('SELECT settings FROM mailboxes WHERE id = ?').pluck().get(mailboxId) as string);
}

export function updateSettings(ctx: GraphContext, mailboxId: string, change: Partial<ReturnType<typeof defaultSettings>>): void {
  const settings = { ...settingsOf(ctx.db, mailboxId), ...change };
  ctx.db.prepare('UPDATE mailboxes SET settings = ? WHERE id = ?').run(JSON.stringify(settings), mailboxId);
}

/** The user as GET /me shows it by default; mailboxSettings only when selected, as in Graph. */
function userOf(db: Database.Database, me: Mailbox) {
  const profile = JSON.parse(db.prepare('SELECT profile FROM mailboxes WHERE id = ?').pluck().get(me.id) as string) as MailboxProfile;
  return {
    id: me.id,
    businessPhones: [],
    displayName: profile.displayName,
    givenName: profile.givenName ?? null,
    jobTitle: profile.jobTitle ?? null,
    mail: profile.mail,
    mobilePhone: profile.mobilePhone ?? null,
    officeLocation: profile.officeLocation ?? null,
    preferredLanguage: profile.preferredLanguage ?? 'en-US',
    surname: profile.surname ?? null,
    userPrincipalName: profile.mail,
  };
}

export const mailboxHandlers: Record<string, Handler> = {
  'me.user.GetUser': ({ query, me }, { db }) => {
    const fields = query.$select as string[] | undefined;
    const user = { ...userOf(db, me), ...(fields?.includes('mailboxSettings') && { mailboxSettings: settingsOf(db, me.id) }) };
    return { status: 200, body: select(user, fields) };
  },
};
