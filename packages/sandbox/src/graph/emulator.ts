import { bearerToken, defineEmulator, type Emulator, type EmulatorOptions } from '../emulator/define.js';
import { combineHandlers } from '../emulator/handlers.js';
import { actionHandlers } from './actions.js';
import type { GraphCaller, GraphContext, Handler, Mailbox } from './context.js';
import { graphRateLimit, renderGraphError } from './errors.js';
import { createMailbox, type defaultSettings, mailboxFor, mailboxHandlers, unauthorized, updateSettings, type MailboxProfile } from './mailboxes.js';
import { folderOf, insertMessage, messageHandlers, newMessage, type Message } from './messages.js';
import { createTables } from './store.js';
import { operationTable } from './table.js';

export type GraphEmulatorOptions = EmulatorOptions;

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

/** The Graph emulator's own methods, besides the shared ones. */
export interface GraphTools {
  /** Creates the mailbox a token signs in to, and issues the token; an issued token used without one gets `userN@contoso.example`. */
  addMailbox(token: string, profile: MailboxProfile): Mailbox;
  /** The mailbox a token signs in to (created on first sight). */
  mailboxFor(token: string): Mailbox;
  /** Places a message from outside into the token's mailbox; answers the stored message. */
  receive(token: string, message: IncomingMessage): Message;
  /** Changes mailbox settings (automatic replies, time zone, ...) of the token's mailbox. */
  updateMailboxSettings(token: string, change: Partial<ReturnType<typeof defaultSettings>>): void;
}

export type GraphEmulator = Emulator & GraphTools;

export const graphHandlers: Record<string, Handler> = combineHandlers('Graph', mailboxHandlers, messageHandlers, actionHandlers);

export const startGraphEmulator = defineEmulator<GraphCaller, GraphContext, GraphTools>({
  name: 'Graph',
  operations: operationTable,
  handlers: graphHandlers,
  createTables,
  context: ({ db, clock, urls }) => ({ db, clock, baseUrl: () => urls.default! }),
  credentials: { read: bearerToken, refuse: unauthorized, principal: (token, { db }) => ({ me: mailboxFor(db, token) }) },
  renderError: (error, _operation, { clock }) => renderGraphError(error, clock.now),
  rateLimit: graphRateLimit,
  api: ({ db, clock, inTransaction, issue }, ctx) => ({
    addMailbox: (token, profile) => inTransaction(() => createMailbox(db, issue(token), profile)),
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
  }),
});
