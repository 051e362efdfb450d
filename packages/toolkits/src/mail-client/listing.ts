/**
 * The three list tools: one page of messages, sorted or filtered, from the whole mailbox or one folder.
 * Graph's next link carries the offset of the next page (`$skip`); that offset is the pagination token.
 */
import {
  answerOfShape,
  callUpstream,
  toolError,
  unexpectedResponse,
  type JsonSchema,
  type Parameter,
  type Tool,
  type ToolContext,
  type ToolHandler,
  type ToolResult,
} from '@quiver/core';
import { binding, variant } from './bindings.js';
import { propertyFilter } from './filter.js';

/** Spec part 8: five messages unless the caller asks for more (at most 100). */
const DEFAULT_LIMIT = 5;

/** The fields a listing shows; bodies stay behind (bodyPreview stands in for them). */
const SUMMARY_FIELDS = [
  'id',
  'subject',
  'from',
  'sender',
  'toRecipients',
  'ccRecipients',
  'receivedDateTime',
  'sentDateTime',
  'bodyPreview',
  'isRead',
  'isDraft',
  'importance',
  'conversationId',
  'parentFolderId',
  'hasAttachments',
  'flag',
  'webLink',
].join(',');

const SORT_FIELDS: Record<string, string> = {
  receivedDateTime: 'receivedDateTime',
  subject: 'subject',
  sender_email_address: 'sender/emailAddress/address',
  importance: 'importance',
};

type Placed = Omit<Parameter, 'description' | 'required' | 'schema'>;
const paging: Placed[] = [
  { name: 'limit', in: 'query', upstream: '$top' },
  { name: 'pagination_token', in: 'query', upstream: '$skip' },
  { name: 'select', in: 'query', upstream: '$select' },
];

/** `$orderby`: ascending is Graph's default, so only descending is spelled out. */
const orderBy = (args: Record<string, unknown>) =>
  `${SORT_FIELDS[(args.sort_by as string | undefined) ?? 'receivedDateTime']}${args.sort_order === 'ascending' ? '' : ' desc'}`;

/** What a page is read for: the messages, and the next page's link when there is one. */
const PAGE_SHAPE: JsonSchema = {
  type: 'object',
  required: ['value'],
  properties: { value: { type: 'array' }, '@odata.nextLink': { type: 'string' } },
};

async function listPage(tool: Tool, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const result = await callUpstream(tool, { ...args, limit: args.limit ?? DEFAULT_LIMIT, select: SUMMARY_FIELDS }, context);
  if ('error' in result) return result;
  const page = answerOfShape<{ value: unknown[]; '@odata.nextLink'?: string }>(tool, result.value, PAGE_SHAPE);
  if ('error' in page) return page;
  const { value: messages, '@odata.nextLink': link } = page.value;
  if (link !== undefined && !URL.canParse(link)) return unexpectedResponse(tool, '@odata.nextLink to be a URL', link);
  const next = link && new URL(link).searchParams.get('$skip');
  return { value: { messages, count: messages.length, ...(next && { pagination_token: next }) } };
}

const mailbox = binding('ListEmails');
const sortedMailbox = variant(mailbox, mailbox.http!, [...paging, { name: 'orderby', in: 'query', upstream: '$orderby' }]);

export const listEmails: ToolHandler = (args, context) => listPage(sortedMailbox, { ...args, orderby: orderBy(args) }, context);

const filteredMailbox = variant(binding('ListEmailsByProperty'), mailbox.http!, [...paging, { name: 'filter', in: 'query', upstream: '$filter' }]);

export const listEmailsByProperty: ToolHandler = async (args, context) => {
  const built = propertyFilter(args.property as string, args.operator as string, args.value as string);
  if ('problem' in built) return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Invalid input for ListEmailsByProperty: ${built.problem}.`);
  return listPage(filteredMailbox, { ...args, filter: built.filter }, context);
};

const inFolder = binding('ListEmailsInFolder');
const sortedFolder = variant(inFolder, inFolder.http!, [
  // Named as the caller's folder_id, so that a refused value is reported under the name the caller used.
  { name: 'folder_id', in: 'path', upstream: 'mailFolder-id' },
  ...paging,
  { name: 'orderby', in: 'query', upstream: '$orderby' },
]);

export const listEmailsInFolder: ToolHandler = async (args, context) => {
  const { well_known_folder_name: name, folder_id: id } = args;
  if ((name === undefined) === (id === undefined)) {
    const which = name === undefined ? 'neither was given' : 'both were given';
    return toolError(
      'TOOL_RUNTIME_BAD_INPUT_VALUE',
      `Invalid input for ListEmailsInFolder: give exactly one of well_known_folder_name and folder_id (${which}).`,
    );
  }
  return listPage(sortedFolder, { ...args, folder_id: name ?? id, orderby: orderBy(args) }, context);
};
