/**
 * The Graph mail emulator over HTTP: auth, validation against Graph's published description, and the
 * behaviours the tools do not reach (Bcc privacy, replyTo, SaveToSentItems, $count and next links).
 */
import { clientFor, type Call } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClock } from '../../src/emulator/clock.js';
import { seedGraphDemo } from '../../src/graph/demo.js';
import { startGraphEmulator, type GraphEmulator } from '../../src/graph/emulator.js';

let emulator: GraphEmulator;
let ada: Call;
let grace: Call;

beforeAll(async () => {
  emulator = await startGraphEmulator({ clock: createClock(Date.UTC(2025, 4, 1)) });
  ada = clientFor(emulator.url, 'ada');
  grace = clientFor(emulator.url, 'grace');
});

afterAll(() => emulator.close());

beforeEach(() => {
  emulator.reset();
  emulator.addMailbox('ada', { displayName: 'Ada', mail: 'ada@contoso.example' });
  emulator.addMailbox('grace', { displayName: 'Grace', mail: 'grace@contoso.example' });
});

const send = (call: Call, message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  call('POST', '/me/sendMail', { body: { Message: message, ...extra } });
const to = (...addresses: string[]) => addresses.map((address) => ({ emailAddress: { address } }));
const inbox = async (call: Call) => (await call('GET', '/me/mailFolders/inbox/messages')).body.value;

describe('auth and validation', () => {
  it('refuses a call without a token with Graph’s 401', async () => {
    const reply = await ada('GET', '/me', { headers: { authorization: null } });
    expect(reply).toMatchObject({ status: 401, body: { error: { code: 'InvalidAuthenticationToken', message: 'Access token is empty.' } } });
  });

  it('gives an issued token without a mailbox one of its own', async () => {
    const me = await clientFor(emulator.url, emulator.issueToken('newcomer'))('GET', '/me');
    expect(me.body.mail).toMatch(/^user\d+@contoso\.example$/);
  });

  it.each([
    ['an action parameter in the wrong case', 'POST', '/me/sendMail', { body: { message: { subject: 'x' } } }, /message is not a known field/],
    ['an unknown query option', 'GET', '/me/messages', { query: { $expand: 'attachments' } }, /unknown query parameter '\$expand'/],
    ['an $orderby Graph does not know', 'GET', '/me/messages', { query: { $orderby: 'size desc' } }, /\$orderby/],
    ['a negative $top', 'GET', '/me/messages', { query: { $top: -1 } }, /\$top/],
    ['a message field of the wrong type', 'POST', '/me/messages', { body: { subject: 5 } }, /subject must be/],
    ['the prefixed action path', 'POST', '/me/microsoft.graph.sendMail', { body: { Message: {} } }, /no operation/],
    ['a sendMail without its message', 'POST', '/me/sendMail', { body: {} }, /parameter 'Message' is empty/],
  ] as const)('refuses %s', async (_case, method, path, options, message) => {
    const reply = await ada(method, path, options as never);
    expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(reply.body.error.message).toMatch(message);
  });

  it('answers a sendMail of {} with the service’s 400, not a fault', async () => {
    const reply = await ada('POST', '/me/sendMail', { body: {} });
    expect(reply).toMatchObject({ status: 400, body: { error: { code: 'ErrorInvalidParameter' } } });
  });

  it('accepts a $select list of several properties', async () => {
    await send(grace, { subject: 'Hi', toRecipients: to('ada@contoso.example') });
    const reply = await ada('GET', '/me/messages', { query: { $select: 'subject,isRead' } });
    expect(reply.body.value).toEqual([{ id: expect.any(String), subject: 'Hi', isRead: false }]);
  });
});

describe('sending', () => {
  it('keeps Bcc private, honours SaveToSentItems, and refuses a message without recipients', async () => {
    expect((await send(ada, { subject: 'Secret', bccRecipients: to('grace@contoso.example') }, { SaveToSentItems: false })).status).toBe(202);
    const [received] = await inbox(grace);
    expect(received.bccRecipients).toEqual([]);
    expect(received.toRecipients).toEqual([]);
    expect((await ada('GET', '/me/mailFolders/sentitems/messages')).body.value).toEqual([]);

    const none = await send(ada, { subject: 'Nobody' });
    expect(none).toMatchObject({ status: 400, body: { error: { code: 'ErrorInvalidRecipients' } } });
  });

  it('a reply goes to replyTo when the original names one', async () => {
    await send(grace, { subject: 'Newsletter', toRecipients: to('ada@contoso.example'), replyTo: to('desk@contoso.example') });
    const [original] = await inbox(ada);
    const draft = await ada('POST', `/me/messages/${original.id}/createReply`, { body: {} });
    expect(draft.status).toBe(201);
    expect(draft.body.toRecipients).toEqual(to('desk@contoso.example'));
    expect((await ada('POST', `/me/messages/${draft.body.id}/createReply`, { body: {} })).body.error.code).toBe('ErrorInvalidOperation');
  });

  it('refuses a reply with both a comment and a message body', async () => {
    await send(grace, { subject: 'Q', toRecipients: to('ada@contoso.example') });
    const [original] = await inbox(ada);
    const reply = await ada('POST', `/me/messages/${original.id}/reply`, { body: { Comment: 'a', Message: { body: { contentType: 'text', content: 'b' } } } });
    expect(reply).toMatchObject({ status: 400, body: { error: { code: 'ErrorInvalidRequest' } } });
  });

  it('another mailbox’s message is not found', async () => {
    await send(grace, { subject: 'Mine', toRecipients: to('ada@contoso.example') });
    const [original] = await inbox(ada);
    expect((await grace('GET', `/me/messages/${original.id}`)).status).toBe(404);
  });
});

describe('lists', () => {
  it('counts and links to the next page with the same options', async () => {
    for (const subject of ['one', 'two', 'three']) await send(grace, { subject, toRecipients: to('ada@contoso.example') });
    const page = await ada('GET', '/me/messages', { query: { $top: 2, $count: 'true', $filter: "subject ne 'zero'" } });
    expect(page.body['@odata.count']).toBe(3);
    const next = new URL(page.body['@odata.nextLink']);
    expect(next.origin).toBe(emulator.url);
    expect(Object.fromEntries(next.searchParams)).toEqual({ $top: '2', $count: 'true', $filter: "subject ne 'zero'", $skip: '2' });
    const rest = await ada('GET', `${next.pathname}${next.search}`);
    expect(rest.body.value.map((m: any) => m.subject)).toEqual(['one']);
    expect(rest.body['@odata.nextLink']).toBeUndefined();
  });

  it('searches subject, body and sender with $search', async () => {
    await send(grace, { subject: 'Quarterly numbers', body: { contentType: 'text', content: 'see attached' }, toRecipients: to('ada@contoso.example') });
    await send(grace, { subject: 'Lunch', toRecipients: to('ada@contoso.example') });
    const found = await ada('GET', '/me/messages', { query: { $search: '"attached"' } });
    expect(found.body.value.map((m: any) => m.subject)).toEqual(['Quarterly numbers']);
  });
});

describe('demo data', () => {
  it('the sandbox mailbox holds three messages, one flagged', async () => {
    emulator.reset();
    seedGraphDemo(emulator, 'ada');
    expect((await ada('GET', '/me')).body.mail).toBe('ada.lovelace@contoso.example');
    expect((await inbox(ada)).map((m: any) => m.subject)).toEqual(['Your quarterly digest', 'Lunch on Thursday', 'Analytical Engine notes']);
    expect((await ada('GET', '/me/mailFolders/starred/messages')).body.value.map((m: any) => m.subject)).toEqual(['Analytical Engine notes']);
  });
});
