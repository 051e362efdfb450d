/**
 * Messages as Graph stores them, and the message operations: list (all folders or one, with $filter,
 * $orderby, $search, $select and paging), read, create a draft, and update.
 */
import type Database from 'better-sqlite3';
import { badRequest, isoTime, itemNotFound, type GraphContext, type GraphRequest, type Handler, type Mailbox } from './context.js';
import { conversationId, itemId } from './ids.js';
import { comparator, matches, parseFilter, parseOrderBy, select } from './odata.js';

export interface Recipient {
  emailAddress: { name?: string | null; address?: string | null };
}

export interface Message {
  id: string;
  createdDateTime: string;
  lastModifiedDateTime: string;
  changeKey: string;
  categories: string[];
  receivedDateTime: string;
  sentDateTime: string | null;
  hasAttachments: boolean;
  internetMessageId: string;
  subject: string;
  bodyPreview: string;
  importance: 'low' | 'normal' | 'high';
  parentFolderId: string;
  conversationId: string;
  isDeliveryReceiptRequested: boolean;
  isReadReceiptRequested: boolean;
  isRead: boolean;
  isDraft: boolean;
  webLink: string;
  inferenceClassification: 'focused' | 'other';
  body: { contentType: 'text' | 'html'; content: string };
  sender: Recipient | null;
  from: Recipient | null;
  toRecipients: Recipient[];
  ccRecipients: Recipient[];
  bccRecipients: Recipient[];
  replyTo: Recipient[];
  flag: { flagStatus: 'notFlagged' | 'complete' | 'flagged' };
}

/** The fields a client may set on a draft (PATCH, or the body of a new message). */
export const DRAFT_FIELDS = [
  'subject',
  'body',
  'toRecipients',
  'ccRecipients',
  'bccRecipients',
  'replyTo',
  'importance',
  'isDeliveryReceiptRequested',
  'isReadReceiptRequested',
] as const;
/** The fields a client may still change once a message is sent or received. */
export const STATE_FIELDS = ['isRead', 'categories', 'flag', 'inferenceClassification'] as const;

/** Graph's preview: the first 255 characters of the body as text. */
export function previewOf(body: Message['body']): string {
  const text = body.contentType === 'html' ? body.content.replace(/<[^>]*>/g, ' ') : body.content;
  return text.replace(/\s+/g, ' ').trim().slice(0, 255);
}

export const addressOf = (mailbox: Mailbox): Recipient => ({ emailAddress: { name: mailbox.displayName, address: mailbox.mail } });

/** A new message of `owner` in `folderId`, with the given fields over the defaults. */
export function newMessage(ctx: GraphContext, owner: Mailbox, folderId: string, fields: Partial<Message>): Message {
  const now = isoTime(ctx.clock.now());
  const id = itemId();
  const body = fields.body ?? { contentType: 'text', content: '' };
  return {
    id,
    createdDateTime: now,
    lastModifiedDateTime: now,
    changeKey: itemId().slice(0, 24),
    categories: [],
    receivedDateTime: now,
    sentDateTime: null,
    hasAttachments: false,
    internetMessageId: `<${id.slice(5, 25)}@contoso.example>`,
    subject: '',
    importance: 'normal',
    parentFolderId: folderId,
    conversationId: conversationId(),
    isDeliveryReceiptRequested: false,
    isReadReceiptRequested: false,
    isRead: true,
    isDraft: false,
    webLink: `https://outlook.office365.com/owa/?ItemID=${encodeURIComponent(id)}&exvsurl=1&viewmodel=ReadMessageItem`,
    inferenceClassification: 'focused',
    sender: addressOf(owner),
    from: addressOf(owner),
    toRecipients: [],
    ccRecipients: [],
    bccRecipients: [],
    replyTo: [],
    flag: { flagStatus: 'notFlagged' },
    ...fields,
    body,
    bodyPreview: previewOf(body),
  };
}

export function insertMessage(db: Database.Database, mailboxId: string, message: Message): Message {
  db.prepare('INSERT INTO messages (id, mailbox_id, folder_id, data) VALUES (?, ?, ?, ?)').run(
    message.id,
    mailboxId,
    message.parentFolderId,
    JSON.stringify(message),
  );
  return message;
}

export function saveMessage(db: Database.Database, message: Message): void {
  db.prepare('UPDATE messages SET data = ?, folder_id = ? WHERE id = ?').run(JSON.stringify(message), message.parentFolderId, message.id);
}

export function deleteMessage(db: Database.Database, id: string): void {
  db.prepare('DELETE FROM messages WHERE id = ?').run(id);
}

/** A message of the caller's mailbox; another mailbox's message is as absent as an unknown one. */
export function messageOf(db: Database.Database, me: Mailbox, id: string): Message {
  const data = db.prepare('SELECT data FROM messages WHERE id = ? AND mailbox_id = ?').pluck().get(id, me.id) as string | undefined;
  if (!data) throw itemNotFound();
  return JSON.parse(data) as Message;
}

export function folderOf(db: Database.Database, me: Mailbox, wellKnown: string): string {
  return db.prepare('SELECT id FROM folders WHERE mailbox_id = ? AND well_known = ?').pluck().get(me.id, wellKnown) as string;
}

/** A folder by id or well-known name; `starred` selects flagged messages wherever they are. */
function folderFilter(db: Database.Database, me: Mailbox, idOrName: string): (message: Message) => boolean {
  if (idOrName.toLowerCase() === 'starred') return (message) => message.flag.flagStatus === 'flagged';
  const id = db.prepare('SELECT id FROM folders WHERE mailbox_id = ? AND (id = ? OR well_known = ?)').pluck().get(me.id, idOrName, idOrName.toLowerCase()) as
    | string
    | undefined;
  if (!id) throw itemNotFound();
  return (message) => message.parentFolderId === id;
}

/** Graph's default page, and its largest. */
const DEFAULT_TOP = 10;
const MAX_TOP = 1000;

function list(request: GraphRequest, ctx: GraphContext, inFolder?: (message: Message) => boolean) {
  const { query, me } = request;
  const rows = ctx.db.prepare('SELECT data FROM messages WHERE mailbox_id = ? ORDER BY seq DESC').pluck().all(me.id) as string[];
  let messages = rows.map((data) => JSON.parse(data) as Message);
  if (inFolder) messages = messages.filter(inFolder);
  if (query.$filter !== undefined) {
    const filter = parseFilter(query.$filter as string);
    messages = messages.filter((message) => matches(filter, message));
  }
  if (query.$search !== undefined) {
    const term = (query.$search as string).replace(/^"(.*)"$/, '$1').toLowerCase();
    messages = messages.filter((m) => [m.subject, m.body.content, m.from?.emailAddress.address ?? ''].some((text) => text.toLowerCase().includes(term)));
  }
  const orderings = query.$orderby !== undefined ? parseOrderBy(query.$orderby as string[]) : [{ path: 'receivedDateTime', descending: true }];
  messages = messages.sort(comparator(orderings));
  const top = query.$top === undefined ? DEFAULT_TOP : Number(query.$top);
  if (top > MAX_TOP) throw badRequest('ErrorInvalidArgument', `$top must be at most ${MAX_TOP}`);
  const skip = query.$skip === undefined ? 0 : Number(query.$skip);
  const page = messages.slice(skip, skip + top);
  const body: Record<string, unknown> = { value: page.map((message) => select({ ...message }, query.$select as string[] | undefined)) };
  if (String(query.$count) === 'true') body['@odata.count'] = messages.length;
  if (skip + top < messages.length) body['@odata.nextLink'] = nextLink(request, ctx, skip + top);
  return { status: 200, body };
}

/** The same request with the next offset: what a client follows to read on. */
function nextLink({ path, query }: GraphRequest, ctx: GraphContext, skip: number): string {
  const search = new URLSearchParams();
  // Graph's query options that take several values take them comma-separated.
  for (const [name, value] of Object.entries(query)) if (name !== '$skip') search.set(name, [value].flat().join(','));
  search.set('$skip', String(skip));
  return `${ctx.baseUrl()}${path}?${search}`;
}

function pick<T extends object>(source: Record<string, unknown>, fields: readonly string[]): Partial<T> {
  return Object.fromEntries(fields.filter((field) => source[field] !== undefined).map((field) => [field, source[field]])) as Partial<T>;
}

export const messageHandlers: Record<string, Handler> = {
  'me.ListMessages': (request, ctx) => list(request, ctx),

  'me.mailFolders.ListMessages': (request, ctx) => list(request, ctx, folderFilter(ctx.db, request.me, request.params['mailFolder-id']!)),

  'me.GetMessages': ({ params, query, me }, { db }) => ({
    status: 200,
    body: select({ ...messageOf(db, me, params['message-id']!) }, query.$select as string[] | undefined),
  }),

  'me.CreateMessages': ({ body, me }, ctx) => {
    const fields = pick<Message>(body as Record<string, unknown>, [...DRAFT_FIELDS, ...STATE_FIELDS]);
    const draft = newMessage(ctx, me, folderOf(ctx.db, me, 'drafts'), { ...fields, isDraft: true, sentDateTime: null });
    return { status: 201, body: insertMessage(ctx.db, me.id, draft) };
  },

  'me.UpdateMessages': ({ params, body, me }, ctx) => {
    const message = messageOf(ctx.db, me, params['message-id']!);
    const change = body as Record<string, unknown>;
    const draftOnly = DRAFT_FIELDS.filter((field) => change[field] !== undefined);
    if (!message.isDraft && draftOnly.length) {
      throw badRequest('ErrorInvalidPropertyUpdateSentMessage', `Update operation is not supported for sent messages: ${draftOnly.join(', ')}.`);
    }
    const fields = pick<Message>(change, [...DRAFT_FIELDS, ...STATE_FIELDS]);
    // A body change may name only the content; the draft keeps its content type then.
    if (fields.body) fields.body = { ...message.body, ...fields.body };
    const updated: Message = { ...message, ...fields, lastModifiedDateTime: isoTime(ctx.clock.now()), changeKey: itemId().slice(0, 24) };
    updated.bodyPreview = previewOf(updated.body);
    saveMessage(ctx.db, updated);
    return { status: 200, body: updated };
  },
};
