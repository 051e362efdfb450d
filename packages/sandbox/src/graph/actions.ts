/**
 * Graph's mail actions: send a new message, send a draft, reply and reply-all at once, or create a reply,
 * reply-all or forward draft. What is sent lands in Sent Items and, for recipients who have a mailbox in
 * the emulator, in their Inbox (without the Bcc line).
 */
import { badRequest, isoTime, type GraphContext, type Handler, type Mailbox } from './context.js';
import { itemId } from './ids.js';
import { mailboxByAddress } from './mailboxes.js';
import { addressOf, deleteMessage, DRAFT_FIELDS, folderOf, insertMessage, messageOf, newMessage, type Message, type Recipient } from './messages.js';

const addressKey = (recipient: Recipient) => recipient.emailAddress.address?.toLowerCase() ?? '';

function unique(recipients: Recipient[], except: string[] = []): Recipient[] {
  const seen = new Set(except.map((address) => address.toLowerCase()));
  return recipients.filter((recipient) => {
    const key = addressKey(recipient);
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Files the sent copy and delivers to every recipient with a mailbox here. */
function dispatch(ctx: GraphContext, me: Mailbox, message: Omit<Message, 'id' | 'parentFolderId'>, saveToSentItems = true): void {
  const all = [...message.toRecipients, ...message.ccRecipients, ...message.bccRecipients];
  if (!all.some((recipient) => addressKey(recipient))) throw badRequest('ErrorInvalidRecipients', 'At least one recipient is required, but none were found.');
  const now = isoTime(ctx.clock.now());
  const sent = { ...message, isDraft: false, isRead: true, sentDateTime: now, receivedDateTime: now };
  if (saveToSentItems) insertMessage(ctx.db, me.id, { ...sent, id: itemId(), parentFolderId: folderOf(ctx.db, me, 'sentitems') });
  for (const recipient of unique(all)) {
    const mailbox = mailboxByAddress(ctx.db, recipient.emailAddress.address!);
    if (!mailbox) continue; // outside the emulator
    const inbox = folderOf(ctx.db, mailbox, 'inbox');
    insertMessage(ctx.db, mailbox.id, { ...sent, id: itemId(), parentFolderId: inbox, isRead: false, bccRecipients: [], flag: { flagStatus: 'notFlagged' } });
  }
}

type Kind = 'reply' | 'replyAll' | 'forward';

/** The original below a header, in the original's body type, with the comment above. */
function quoted(original: Message, comment: string): Message['body'] {
  const from = original.from?.emailAddress;
  const sender = from ? `${from.name ?? ''} <${from.address ?? ''}>`.trim() : '';
  const sent = original.sentDateTime ?? original.receivedDateTime;
  if (original.body.contentType === 'html') {
    const escapeHtml = (text: string) => text.replace(/[<>&]/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp' }[c]};`);
    return {
      contentType: 'html',
      content: `<div>${escapeHtml(comment)}</div><hr><div><b>From:</b> ${escapeHtml(sender)}<br><b>Sent:</b> ${sent}<br><b>Subject:</b> ${escapeHtml(original.subject)}</div>${original.body.content}`,
    };
  }
  return {
    contentType: 'text',
    content: `${comment}\n\n________________________________\nFrom: ${sender}\nSent: ${sent}\nSubject: ${original.subject}\n\n${original.body.content}`,
  };
}

function prefixed(prefix: 'RE' | 'FW', subject: string): string {
  return new RegExp(`^${prefix}:`, 'i').test(subject) ? subject : `${prefix}: ${subject}`;
}

/** The answer to `original`: subject, quoted body, recipients by kind, same conversation. */
function answer(me: Mailbox, original: Message, kind: Kind, comment: string, forwardTo: Recipient[] = []): Partial<Message> {
  const mine = original.from?.emailAddress.address?.toLowerCase() === me.mail.toLowerCase();
  // The sender, or whom the sender asked replies to go to; on one's own sent message, its recipients.
  const back = original.replyTo.length ? original.replyTo : mine ? original.toRecipients : original.from ? [original.from] : [];
  const to = kind === 'forward' ? forwardTo : kind === 'reply' ? unique(back) : unique([...back, ...original.toRecipients], [me.mail]);
  const cc = kind === 'replyAll' ? unique(original.ccRecipients, [me.mail, ...to.map(addressKey)]) : [];
  return {
    subject: prefixed(kind === 'forward' ? 'FW' : 'RE', original.subject),
    body: quoted(original, comment),
    toRecipients: to,
    ccRecipients: cc,
    conversationId: original.conversationId,
  };
}

interface ActionBody {
  Comment?: string | null;
  Message?: Partial<Message> | null;
  ToRecipients?: Recipient[];
}

/** The original an answer may be made to: an existing message that is not itself an unsent draft. */
function originalOf(ctx: GraphContext, me: Mailbox, id: string, body: ActionBody): Message {
  const original = messageOf(ctx.db, me, id);
  if (body.Comment && body.Message?.body) throw badRequest('ErrorInvalidRequest', 'Specify either a comment or the body of the message, not both.');
  if (original.isDraft) throw badRequest('ErrorInvalidOperation', 'A draft cannot be answered; send it first.');
  return original;
}

/** Fields of `Message` in an action body, over what the action composed. */
const overrides = (body: ActionBody): Partial<Message> =>
  Object.fromEntries(DRAFT_FIELDS.filter((field) => body.Message?.[field] !== undefined).map((field) => [field, body.Message![field]]));

function answerNow(kind: 'reply' | 'replyAll'): Handler {
  return ({ params, body, me }, ctx) => {
    const action = body as ActionBody;
    const original = originalOf(ctx, me, params['message-id']!, action);
    const composed = newMessage(ctx, me, '', { ...answer(me, original, kind, action.Comment ?? ''), ...overrides(action) });
    dispatch(ctx, me, composed);
    return { status: 202 };
  };
}

function answerDraft(kind: Kind): Handler {
  return ({ params, body, me }, ctx) => {
    const action = (body ?? {}) as ActionBody;
    const original = originalOf(ctx, me, params['message-id']!, action);
    const fields = { ...answer(me, original, kind, action.Comment ?? '', action.ToRecipients ?? []), ...overrides(action) };
    const draft = newMessage(ctx, me, folderOf(ctx.db, me, 'drafts'), { ...fields, isDraft: true });
    return { status: 201, body: insertMessage(ctx.db, me.id, draft) };
  };
}

export const actionHandlers: Record<string, Handler> = {
  'me.sendMail': ({ body, me }, ctx) => {
    const { Message: fields, SaveToSentItems } = (body ?? {}) as { Message?: Partial<Message> | null; SaveToSentItems?: boolean | null };
    // Graph answers a sendMail without its message as bad input, not as a server failure.
    if (!fields || typeof fields !== 'object') throw badRequest('ErrorInvalidParameter', "The value of the parameter 'Message' is empty.");
    const composed = newMessage(ctx, me, '', Object.fromEntries(DRAFT_FIELDS.filter((f) => fields[f] !== undefined).map((f) => [f, fields[f]])));
    dispatch(ctx, me, { ...composed, from: addressOf(me), sender: addressOf(me) }, SaveToSentItems !== false);
    return { status: 202 };
  },

  /** The draft leaves Drafts; its sent copy (a new item, with a new id) is in Sent Items. */
  'me.messages.message.send': ({ params, me }, ctx) => {
    const draft = messageOf(ctx.db, me, params['message-id']!);
    if (!draft.isDraft) throw badRequest('ErrorInvalidOperation', 'Only a draft can be sent; this message has been sent already.');
    dispatch(ctx, me, draft);
    deleteMessage(ctx.db, draft.id);
    return { status: 202 };
  },

  'me.messages.message.reply': answerNow('reply'),
  'me.messages.message.replyAll': answerNow('replyAll'),
  'me.messages.message.createReply': answerDraft('reply'),
  'me.messages.message.createReplyAll': answerDraft('replyAll'),
  'me.messages.message.createForward': answerDraft('forward'),
};
