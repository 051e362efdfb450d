/**
 * A draft update: Graph replaces recipient lists whole, so the tool reads the draft, applies the
 * additions and removals to its lists, and sends back only what changed.
 */
import { answerOfShape, callUpstream, toolError, type JsonSchema, type ToolHandler } from '@quiver/core';
import { binding, variant } from './bindings.js';
import { adjust, type Recipient } from './recipients.js';

interface Draft {
  isDraft?: boolean;
  body?: { contentType?: string };
  toRecipients?: Recipient[];
  ccRecipients?: Recipient[];
  bccRecipients?: Recipient[];
}

const LISTS = [
  { field: 'toRecipients', add: 'to_add', remove: 'to_remove', label: 'To' },
  { field: 'ccRecipients', add: 'cc_add', remove: 'cc_remove', label: 'Cc' },
  { field: 'bccRecipients', add: 'bcc_add', remove: 'bcc_remove', label: 'Bcc' },
] as const;

// null is read as absent, as the code below reads it.
const RECIPIENTS: JsonSchema = {
  type: ['array', 'null'],
  items: {
    type: 'object',
    required: ['emailAddress'],
    properties: { emailAddress: { type: 'object', required: ['address'], properties: { address: { type: 'string' } } } },
  },
};

/** The fields of the draft the update reads. */
const DRAFT_SHAPE: JsonSchema = {
  type: 'object',
  properties: {
    isDraft: { type: 'boolean' },
    body: { type: ['object', 'null'], properties: { contentType: { type: 'string' } } },
    ...Object.fromEntries(LISTS.map((list) => [list.field, RECIPIENTS])),
  },
};

const CHANGES = ['subject', 'body', ...LISTS.flatMap((list) => [list.add, list.remove])];

const update = binding('UpdateDraftEmail');
const read = variant(update, { method: 'GET', path: update.http!.path }, [
  { name: 'message_id', in: 'path', upstream: 'message-id' },
  { name: 'select', in: 'query', upstream: '$select' },
]);
const patch = variant(update, update.http!, [
  { name: 'message_id', in: 'path', upstream: 'message-id' },
  { name: 'subject', in: 'body', upstream: 'subject' },
  { name: 'body', in: 'body', upstream: 'body' },
  ...LISTS.map((list) => ({ name: list.field, in: 'body' as const, upstream: list.field })),
]);

const refuse = (message: string) => toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Invalid input for UpdateDraftEmail: ${message}`);

export const updateDraftEmail: ToolHandler = async (args, context) => {
  if (!CHANGES.some((name) => args[name] !== undefined)) return refuse(`give at least one of ${CHANGES.join(', ')}.`);
  const answer = await callUpstream(read, { message_id: args.message_id, select: 'isDraft,body,toRecipients,ccRecipients,bccRecipients' }, context);
  if ('error' in answer) return answer;
  const current = answerOfShape<Draft>(read, answer.value, DRAFT_SHAPE);
  if ('error' in current) return current;
  const draft = current.value;
  if (draft.isDraft === false) return refuse(`message ${args.message_id} has been sent; only unsent drafts can be changed.`);

  const changes: Record<string, unknown> = { message_id: args.message_id, subject: args.subject };
  if (args.body !== undefined) changes.body = { contentType: draft.body?.contentType ?? 'text', content: args.body };
  for (const list of LISTS) {
    const add = args[list.add] as string[] | undefined;
    const remove = args[list.remove] as string[] | undefined;
    if (add === undefined && remove === undefined) continue;
    const adjusted = adjust(draft[list.field] ?? [], add, remove);
    if ('missing' in adjusted)
      return refuse(
        `${list.remove} names ${adjusted.missing.join(', ')}, which ${adjusted.missing.length > 1 ? 'are' : 'is'} not among the draft's ${list.label} recipients; nothing was changed.`,
      );
    changes[list.field] = adjusted.list;
  }
  return callUpstream(patch, changes, context);
};
