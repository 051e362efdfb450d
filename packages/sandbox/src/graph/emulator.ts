/**
 * The Microsoft Graph mail emulator: the shared HTTP layer (routing, validation against Graph's published
 * description, recording) over the generated operation table, Graph's auth and error shape, SQLite state
 * (mailboxes, folders, messages), OData query options, and the mail actions.
 */
import type Database from 'better-sqlite3';
import { createClock, type Clock } from '../emulator/clock.js';
import { checkHandlers, resetTables, serviceDatabase } from '../emulator/database.js';
import { combineHandlers } from '../emulator/handlers.js';
import { startEmulator, type RecordedRequest } from '../emulator/server.js';
import { actionHandlers } from './actions.js';
import type { GraphContext, Handler, Mailbox } from './context.js';
import { renderGraphError } from './errors.js';
import { bearerToken, createMailbox, defaultSettings, mailboxFor, mailboxHandlers, updateSettings, type MailboxProfile } from './mailboxes.js';
import { folderOf, insertMessage, messageHandlers, newMessage, type Message } from './messages.js';
import { createTables } from './store.js';
import { operationTable } from './table.js';

export interface GraphEmulatorOptions {
  /** The clock handlers read (message times); tests pass one they control. Default: real time. */
  clock?: Clock;
  /** SQLite file for state that outlives the process. Default: in memory. */
  dbPath?: string;
}

/** A message arriving from outside the emulator, as a test or the sandbox demo places it. */
export interface IncomingMessage {
  from: { name: string; address: string };
  subject: string;
  body: string;
  bodyType?: 'text' | 'html';
  /** Addresses besides the mailbox's own. */
  cc?: string[];
  receivedDateTime?: string;
  importance?: Message['importance'];
  flagged?: boolean;
  isRead?: boolean;
  folder?: 'inbox' | 'junkemail' | 'archive' | 'deleteditems';
}

export interface GraphEmulator {
  /** Base URL, e.g. http://127.0.0.1:43121, standing for https://graph.microsoft.com/v1.0. */
  url: string;
  /** Every request received, in order, refused ones included. */
  requests: RecordedRequest[];
  clock: Clock;
  db: Database.Database;
  /** Creates the mailbox a token signs in to; a token used without one gets `userN@contoso.example`. */
  addMailbox(token: string, profile: MailboxProfile): Mailbox;
  /** The mailbox a token signs in to (created on first sight). */
  mailboxFor(token: string): Mailbox;
  /** Places a message from outside into the token's mailbox; answers the stored message. */
  receive(token: string, message: IncomingMessage): Message;
  /** Changes mailbox settings (automatic replies, time zone, ...) of the token's mailbox. */
  updateMailboxSettings(token: string, change: Partial<ReturnType<typeof defaultSettings>>): void;
  /** Empties all state and the request log. */
  reset(): void;
  close(): Promise<void>;
}

export const graphHandlers: Record<string, Handler> = combineHandlers('Graph', mailboxHandlers, messageHandlers, actionHandlers);

export async function startGraphEmulator(options: GraphEmulatorOptions = {}): Promise<GraphEmulator> {
  checkHandlers('Graph', operationTable, graphHandlers);
  const clock = options.clock ?? createClock();
  const { db, inTransaction } = serviceDatabase(options.dbPath);
  createTables(db);
  let url = '';
  const ctx: GraphContext = { db, clock, baseUrl: () => url };

  const server = await startEmulator<Mailbox>({
    operations: operationTable,
    authenticate: (headers) => inTransaction(() => mailboxFor(db, bearerToken(headers.authorization))),
    handle: (call, me) => inTransaction(() => graphHandlers[call.label]!(call, me, ctx)),
    renderError: (error) => renderGraphError(error, clock.now),
  });
  url = server.url;

  return {
    url,
    requests: server.requests,
    clock,
    db,
    addMailbox: (token, profile) => inTransaction(() => createMailbox(db, token, profile)),
    mailboxFor: (token) => inTransaction(() => mailboxFor(db, token)),
    receive: (token, incoming) =>
      inTransaction(() => {
        const me = mailboxFor(db, token);
        const sender = { emailAddress: { name: incoming.from.name, address: incoming.from.address } };
        const at = incoming.receivedDateTime ?? new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
        const message = newMessage(ctx, me, folderOf(db, me, incoming.folder ?? 'inbox'), {
          subject: incoming.subject,
          body: { contentType: incoming.bodyType ?? 'text', content: incoming.body },
          from: sender,
          sender,
          toRecipients: [{ emailAddress: { name: me.displayName, address: me.mail } }],
          ccRecipients: (incoming.cc ?? []).map((address) => ({ emailAddress: { name: null, address } })),
          receivedDateTime: at,
          sentDateTime: at,
          importance: incoming.importance ?? 'normal',
          isRead: incoming.isRead ?? false,
          flag: { flagStatus: incoming.flagged ? 'flagged' : 'notFlagged' },
        });
        return insertMessage(db, me.id, message);
      }),
    updateMailboxSettings: (token, change) => inTransaction(() => updateSettings(ctx, mailboxFor(db, token).id, change)),
    reset() {
      resetTables(db, createTables);
      server.requests.length = 0;
    },
    async close() {
      await server.close();
      db.close();
    },
  };
}
