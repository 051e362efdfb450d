/**
 * Closed objects at every depth: an upstream refuses a field it does not know wherever it sits, so the
 * emulators must too, in array items, in objects reached through `$defs` (as HubSpot, Graph and Figma
 * bodies are) and in map values, not only at the top of a body.
 */
import { describe, expect, it } from 'vitest';
import type { OperationTable } from '../../src/emulator/operations.js';
import { createValidator } from '../../src/emulator/validation.js';

const table: OperationTable = {
  $defs: {
    Recipient: {
      type: 'object',
      required: ['address'],
      properties: { address: { type: 'string' }, tags: { type: 'array', items: { $ref: '#/$defs/Tag' } } },
    },
    Tag: { type: 'object', properties: { name: { type: 'string' } } },
  },
  operations: {
    send: {
      method: 'POST',
      path: '/send',
      pathParameters: {},
      queryParameters: {},
      requestContentType: 'application/json',
      requestBody: {
        type: 'object',
        properties: {
          subject: { type: 'string' },
          options: { type: 'object', properties: { urgent: { type: 'boolean' } } },
          attachments: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          to: { type: 'array', items: { $ref: '#/$defs/Recipient' } },
          from: { $ref: '#/$defs/Recipient' },
          headers: { type: 'object', additionalProperties: { type: 'object', properties: { value: { type: 'string' } } } },
        },
      },
      successStatus: 202,
    },
  },
};

const valid = {
  subject: 'Hello',
  options: { urgent: false },
  attachments: [{ name: 'a.txt' }],
  to: [{ address: 'ada@example.com', tags: [{ name: 'vip' }] }],
  from: { address: 'me@example.com' },
  headers: { 'x-trace': { value: '1' } },
};

describe('closed objects', () => {
  const validator = createValidator(table);

  it('accept the valid body', () => {
    expect(validator.body('send', valid)).toBeUndefined();
  });

  const depths: Array<[string, (body: any) => void, string]> = [
    ['the top of the body', (body) => (body.extra = 1), 'extra'],
    ['a nested object', (body) => (body.options.extra = 1), 'options.extra'],
    ['an object in array items', (body) => (body.attachments[0].extra = 1), 'attachments[0].extra'],
    ['an object reached through $defs', (body) => (body.from.extra = 1), 'from.extra'],
    ['an object in array items reached through $defs', (body) => (body.to[0].extra = 1), 'to[0].extra'],
    ['an object in the items of a $defs object', (body) => (body.to[0].tags[0].extra = 1), 'to[0].tags[0].extra'],
    ['a map value', (body) => (body.headers['x-trace'].extra = 1), 'headers.x-trace.extra'],
  ];

  it.each(depths)('refuse an unknown field in %s, naming it', (_where, addField, field) => {
    const body = structuredClone(valid);
    addField(body);
    const issue = validator.body('send', body);
    expect(issue).toMatchObject({ in: 'body', code: 'UNKNOWN_FIELD' });
    expect(issue!.message).toContain(`${field} is not a known field`);
  });
});
