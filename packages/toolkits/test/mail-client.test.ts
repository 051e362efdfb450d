/**
 * End-to-end tests of every MailClient tool through the core Runtime against the Microsoft Graph mail
 * emulator (which checks each request against Graph's published description): sending, drafts of every
 * kind through the state table of spec part 3, replies, listing with sorting, OData filters and paging,
 * folders, the profile, and the limits of part 8. The last test checks that all 9 tools were called.
 */
import { readFileSync } from 'node:fs';
import { createClock, startGraphEmulator, type GraphEmulator } from '@quiver/sandbox';
import { ServingPolicy } from '@quiver/core';
import { mailClient } from '@quiver/toolkits';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolClient } from './tool-client.helpers.js';

const catalog = JSON.parse(readFileSync(new URL('../src/mail-client/catalog.json', import.meta.url), 'utf8')) as {
  tools: Array<{ name: string; requirements: { oauth2: { provider: string; scopes: string[] } } }>;
};

const START = Date.UTC(2025, 4, 12, 8);
const covered = new Set<string>();
let emulator: GraphEmulator;
const upstream = () => emulator;
const ada = new ToolClient(mailClient, { upstream, token: 'ada-token', covered, verbose: true });
const grace = new ToolClient(mailClient, { upstream, token: 'grace-token', covered, verbose: true });
const alan = new ToolClient(mailClient, { upstream, token: 'alan-token', covered, verbose: true });

const ADA = 'ada@contoso.example';
const GRACE = 'grace@contoso.example';
const ALAN = 'alan@contoso.example';

beforeAll(async () => {
  emulator = await startGraphEmulator({ clock: createClock(START) });
});

afterAll(async () => {
  await emulator?.close();
});

beforeEach(() => {
  emulator.reset();
  emulator.clock.set(START);
  emulator.addMailbox('ada-token', { displayName: 'Ada Lovelace', givenName: 'Ada', surname: 'Lovelace', mail: ADA, jobTitle: 'Analyst' });
  emulator.addMailbox('grace-token', { displayName: 'Grace Hopper', mail: GRACE });
  emulator.addMailbox('alan-token', { displayName: 'Alan Turing', mail: ALAN });
});

const addresses = (recipients: Array<{ emailAddress: { address: string } }>) => recipients.map((r) => r.emailAddress.address);
const lastRequest = () => emulator.requests.at(-1)!;

/** Graph calls no tool makes (reply and forward drafts), sent as a Graph client would. */
async function graph(token: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} -> ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function folder(client: ToolClient, name: string, extra: Record<string, unknown> = {}): Promise<any[]> {
  return (await client.call('ListEmailsInFolder', { well_known_folder_name: name, limit: 100, ...extra })).messages;
}

/** A message from Grace to Ada (cc Alan), received by Ada. */
async function receivedByAda(subject = 'Compiler notes'): Promise<any> {
  await grace.call('CreateAndSendEmail', { subject, body: 'Please review the compiler notes.', to_recipients: [ADA], cc_recipients: [ALAN] });
  return (await folder(ada, 'inbox')).find((message) => message.subject === subject);
}

describe('sending', () => {
  it('CreateAndSendEmail sends at once: a copy in Sent Items, and one in each recipient’s Inbox without the Bcc line', async () => {
    const { result, sent } = await ada.sentDuring(() =>
      ada.call('CreateAndSendEmail', {
        subject: 'Engine',
        body: '<p>The <b>engine</b> runs.</p>',
        body_type: 'html',
        to_recipients: [GRACE],
        cc_recipients: [ALAN],
        bcc_recipients: ['outside@elsewhere.example'],
      }),
    );
    expect(result).toEqual({ sent: true, subject: 'Engine', to_recipients: [GRACE], cc_recipients: [ALAN], bcc_recipients: ['outside@elsewhere.example'] });
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /me/sendMail']);
    expect(sent[0]!.body).toEqual({
      Message: {
        subject: 'Engine',
        body: { content: '<p>The <b>engine</b> runs.</p>', contentType: 'html' },
        toRecipients: [{ emailAddress: { address: GRACE } }],
        ccRecipients: [{ emailAddress: { address: ALAN } }],
        bccRecipients: [{ emailAddress: { address: 'outside@elsewhere.example' } }],
      },
    });

    const [copy] = await folder(ada, 'sentitems');
    expect(copy).toMatchObject({ subject: 'Engine', isDraft: false, bodyPreview: 'The engine runs.' });
    const [received] = await folder(grace, 'inbox');
    expect(received).toMatchObject({ subject: 'Engine', isRead: false, from: { emailAddress: { address: ADA, name: 'Ada Lovelace' } } });
    expect(addresses(received.ccRecipients)).toEqual([ALAN]);
    expect((await folder(alan, 'inbox')).map((m) => m.subject)).toEqual(['Engine']);
    const full = await graph('grace-token', 'GET', `/me/messages/${received.id}`);
    expect(full.bccRecipients).toEqual([]);
    expect(full.body).toEqual({ contentType: 'html', content: '<p>The <b>engine</b> runs.</p>' });
  });

  it('the body type defaults to text', async () => {
    await ada.call('CreateAndSendEmail', { subject: 'Plain', body: 'Just text', to_recipients: [GRACE] });
    expect((lastRequest().body as any).Message.body).toEqual({ content: 'Just text', contentType: 'text' });
  });

  it('ReplyToEmail answers the sender only by default, or everyone with reply_all, quoting the original', async () => {
    const original = await receivedByAda();
    const { result, sent } = await ada.sentDuring(() => ada.call('ReplyToEmail', { message_id: original.id, body: 'Reviewed.' }));
    expect(result).toEqual({ replied: true, message_id: original.id, reply_type: 'reply' });
    expect(sent.map((r) => [r.method, r.path, r.body])).toEqual([['POST', `/me/messages/${original.id}/reply`, { Comment: 'Reviewed.' }]]);
    const [reply] = await folder(grace, 'inbox');
    expect(reply).toMatchObject({ subject: 'RE: Compiler notes', conversationId: original.conversationId });
    expect(addresses(reply.toRecipients)).toEqual([GRACE]);
    const body = (await graph('grace-token', 'GET', `/me/messages/${reply.id}`)).body.content;
    expect(body).toMatch(/^Reviewed\.\n\n_+\nFrom: Grace Hopper <grace@contoso\.example>[\s\S]*Please review the compiler notes\.$/);
    expect((await folder(alan, 'inbox')).map((m) => m.subject)).toEqual(['Compiler notes']);

    await ada.call('ReplyToEmail', { message_id: original.id, body: 'Thanks, all.', reply_type: 'reply_all' });
    expect(lastRequest().path).toBe(`/me/messages/${original.id}/replyAll`);
    const toAlan = (await folder(alan, 'inbox')).find((m) => m.subject === 'RE: Compiler notes');
    expect(addresses(toAlan.toRecipients)).toEqual([GRACE]);
    expect(addresses(toAlan.ccRecipients)).toEqual([ALAN]);
    expect((await folder(ada, 'sentitems')).map((m) => m.subject)).toEqual(['RE: Compiler notes', 'RE: Compiler notes']);
  });

  it('replying to a message that does not exist is not found', async () => {
    expect(await ada.fail('ReplyToEmail', { message_id: 'AAMkAnotthere', body: 'Hello?' })).toMatchObject({
      kind: 'UPSTREAM_RUNTIME_NOT_FOUND',
      status_code: 404,
    });
  });
});

describe('drafts: the state table of spec part 3', () => {
  /** One draft of each kind the table names, all in Ada's Drafts folder. */
  async function draftsOfEveryKind(): Promise<Record<string, any>> {
    const original = await receivedByAda();
    const draft = await ada.call('CreateDraftEmail', { subject: 'Plan', body: 'First version', to_recipients: [GRACE], cc_recipients: [ALAN] });
    const replyDraft = await graph('ada-token', 'POST', `/me/messages/${original.id}/createReply`, { Comment: 'Draft reply' });
    const replyAllDraft = await graph('ada-token', 'POST', `/me/messages/${original.id}/createReplyAll`, { Comment: 'Draft reply to all' });
    const forwardDraft = await graph('ada-token', 'POST', `/me/messages/${original.id}/createForward`, {
      Comment: 'FYI',
      ToRecipients: [{ emailAddress: { address: ALAN } }],
    });
    return { draft, 'reply-draft': replyDraft, 'reply-all draft': replyAllDraft, 'forward draft': forwardDraft };
  }

  it('CreateDraftEmail saves an unsent draft in Drafts', async () => {
    const { result: draft, sent } = await ada.sentDuring(() =>
      ada.call('CreateDraftEmail', { subject: 'Plan', body: 'First version', to_recipients: [GRACE], bcc_recipients: [ALAN] }),
    );
    expect(sent[0]!.body).toEqual({
      subject: 'Plan',
      body: { content: 'First version', contentType: 'text' },
      toRecipients: [{ emailAddress: { address: GRACE } }],
      bccRecipients: [{ emailAddress: { address: ALAN } }],
    });
    expect(draft).toMatchObject({ subject: 'Plan', isDraft: true, body: { contentType: 'text', content: 'First version' }, sentDateTime: null });
    expect((await folder(ada, 'drafts')).map((m) => m.id)).toEqual([draft.id]);
    expect(await folder(grace, 'inbox')).toEqual([]);
  });

  it('UpdateDraftEmail on every kind of draft: same draft, subject and body overwritten, recipients adjusted', async () => {
    const drafts = await draftsOfEveryKind();
    for (const [kind, draft] of Object.entries(drafts)) {
      const before = await graph('ada-token', 'GET', `/me/messages/${draft.id}`);
      const { result, sent } = await ada.sentDuring(() =>
        ada.call('UpdateDraftEmail', {
          message_id: draft.id,
          subject: `New subject (${kind})`,
          body: 'Second version',
          to_add: ['new.person@elsewhere.example'],
          cc_add: ['cc.person@elsewhere.example'],
          bcc_add: [GRACE, ALAN],
        }),
      );
      // Read first (the lists are replaced whole), then one PATCH with what changed.
      expect(
        sent.map((r) => r.method),
        kind,
      ).toEqual(['GET', 'PATCH']);
      expect(result.id, kind).toBe(draft.id);
      expect(result, kind).toMatchObject({
        isDraft: true,
        subject: `New subject (${kind})`,
        body: { contentType: before.body.contentType, content: 'Second version' },
      });
      expect(addresses(result.toRecipients), kind).toEqual([...addresses(before.toRecipients), 'new.person@elsewhere.example']);
      expect(addresses(result.ccRecipients), kind).toEqual([...addresses(before.ccRecipients), 'cc.person@elsewhere.example']);
      expect(addresses(result.bccRecipients), kind).toEqual([GRACE, ALAN]);

      const removed = await ada.call('UpdateDraftEmail', { message_id: draft.id, to_remove: ['NEW.PERSON@elsewhere.example'], bcc_remove: [GRACE] });
      expect(addresses(removed.toRecipients), kind).toEqual(addresses(before.toRecipients));
      expect(addresses(removed.bccRecipients), kind).toEqual([ALAN]);
      expect(removed.subject, `${kind}: a subject left out stays`).toBe(`New subject (${kind})`);
      expect(removed.body.content, `${kind}: a body left out stays`).toBe('Second version');
    }
    expect((await folder(ada, 'drafts')).length).toBe(4);
  });

  it('adding an address already there changes nothing; a removal the draft lacks is refused without a PATCH', async () => {
    const draft = await ada.call('CreateDraftEmail', { subject: 'Plan', body: 'x', to_recipients: [GRACE] });
    const same = await ada.call('UpdateDraftEmail', { message_id: draft.id, to_add: ['Grace@Contoso.example'] });
    expect(addresses(same.toRecipients)).toEqual([GRACE]);

    const { result: error, sent } = await ada.sentDuring(() => ada.fail('UpdateDraftEmail', { message_id: draft.id, subject: 'Changed', cc_remove: [ALAN] }));
    expect(sent.map((r) => r.method)).toEqual(['GET']);
    expect(error).toMatchObject({
      kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE',
      message: expect.stringContaining(`cc_remove names ${ALAN}, which is not among the draft's Cc recipients; nothing was changed`),
    });
    expect((await graph('ada-token', 'GET', `/me/messages/${draft.id}`)).subject).toBe('Plan');
  });

  it('UpdateDraftEmail needs an existing draft and at least one change', async () => {
    expect(await ada.fail('UpdateDraftEmail', { message_id: 'AAMkAmissing', subject: 'x' })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
    const draft = await ada.call('CreateDraftEmail', { subject: 'Plan', body: 'x', to_recipients: [GRACE] });
    expect((await ada.refuse('UpdateDraftEmail', { message_id: draft.id })).message).toMatch(/give at least one of subject, body, to_add/);
    // Another user's draft is as absent as an unknown one.
    expect(await grace.fail('UpdateDraftEmail', { message_id: draft.id, subject: 'Mine now' })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
  });

  it('a sent message is no longer a draft: UpdateDraftEmail refuses it without a PATCH', async () => {
    const original = await receivedByAda();
    const { result: error, sent } = await ada.sentDuring(() => ada.fail('UpdateDraftEmail', { message_id: original.id, subject: 'Rewritten' }));
    expect(sent.map((r) => r.method)).toEqual(['GET']);
    expect(error.message).toMatch(/has been sent; only unsent drafts can be changed/);
    // Graph itself refuses such a change too.
    const response = await fetch(`${emulator.url}/me/messages/${original.id}`, {
      method: 'PATCH',
      headers: { authorization: 'Bearer ada-token', 'content-type': 'application/json' },
      body: '{"subject":"x"}',
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('ErrorInvalidPropertyUpdateSentMessage');
  });

  it('SendDraftEmail sends every kind of draft: it leaves Drafts, lands in Sent Items and reaches its recipients', async () => {
    const drafts = await draftsOfEveryKind();
    for (const [kind, draft] of Object.entries(drafts)) {
      const { result, sent } = await ada.sentDuring(() => ada.call('SendDraftEmail', { message_id: draft.id }));
      expect(result, kind).toEqual({ success: true, status: 202 });
      expect(
        sent.map((r) => `${r.method} ${r.path}`),
        kind,
      ).toEqual([`POST /me/messages/${draft.id}/send`]);
      expect(
        (await folder(ada, 'drafts')).some((m) => m.id === draft.id),
        kind,
      ).toBe(false);
      expect(
        (await folder(ada, 'sentitems')).some((m) => m.subject === draft.subject && !m.isDraft),
        kind,
      ).toBe(true);
    }
    expect((await folder(grace, 'inbox')).map((m) => m.subject).sort()).toEqual(['Plan', 'RE: Compiler notes', 'RE: Compiler notes']);
    expect((await folder(alan, 'inbox')).map((m) => m.subject).sort()).toEqual(['Compiler notes', 'FW: Compiler notes', 'Plan', 'RE: Compiler notes']);
  });

  it('SendDraftEmail needs an existing draft: a sent one (or an unknown id) is not found', async () => {
    const draft = await ada.call('CreateDraftEmail', { subject: 'Once', body: 'x', to_recipients: [GRACE] });
    await ada.call('SendDraftEmail', { message_id: draft.id });
    expect(await ada.fail('SendDraftEmail', { message_id: draft.id })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND', status_code: 404 });
    expect(await ada.fail('SendDraftEmail', { message_id: 'AAMkAnever' })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
    expect((await folder(grace, 'inbox')).map((m) => m.subject)).toEqual(['Once']);
  });

  it('a draft without recipients cannot be sent until it has one', async () => {
    const draft = await ada.call('CreateDraftEmail', { subject: 'Nobody yet', body: 'x', to_recipients: [GRACE] });
    await ada.call('UpdateDraftEmail', { message_id: draft.id, to_remove: [GRACE] });
    const error = await ada.fail('SendDraftEmail', { message_id: draft.id });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_BAD_REQUEST', message: expect.stringContaining('At least one recipient is required') });
    await ada.call('UpdateDraftEmail', { message_id: draft.id, to_add: [ALAN] });
    await ada.call('SendDraftEmail', { message_id: draft.id });
    expect((await folder(alan, 'inbox')).map((m) => m.subject)).toEqual(['Nobody yet']);
  });
});

describe('listing, sorting and paging', () => {
  /** Seven messages in Ada's inbox, a day apart, from various senders. */
  function seedInbox(): void {
    const senders = ['zoe@a.example', 'bob@b.example', 'carol@c.example', 'dave@d.example', 'erin@e.example', 'frank@f.example', 'amy@g.example'];
    for (const [n, address] of senders.entries()) {
      emulator.receive('ada-token', {
        from: { name: address.split('@')[0]!, address },
        subject: `Report ${String.fromCharCode(71 - n)}`, // G, F, ... A
        body: `Body ${n}`,
        receivedDateTime: new Date(Date.UTC(2025, 4, 1 + n, 9)).toISOString(),
        importance: n === 3 ? 'high' : n === 5 ? 'low' : 'normal',
        flagged: n % 3 === 0,
      });
    }
  }

  it('ListEmails answers 5 messages by default, newest first, with a token for the next page', async () => {
    seedInbox();
    const { result: first, sent } = await ada.sentDuring(() => ada.call('ListEmails'));
    expect(sent[0]!.query).toMatchObject({ $top: '5', $orderby: 'receivedDateTime desc' });
    expect(first.count).toBe(5);
    expect(first.messages.map((m: any) => m.subject)).toEqual(['Report A', 'Report B', 'Report C', 'Report D', 'Report E']);
    expect(first.messages[0].body).toBeUndefined(); // the listing selects summaries
    expect(first.pagination_token).toBe('5');

    const second = await ada.call('ListEmails', { pagination_token: first.pagination_token });
    expect(lastRequest().query).toMatchObject({ $skip: '5', $top: '5' });
    expect(second.messages.map((m: any) => m.subject)).toEqual(['Report F', 'Report G']);
    expect(second.pagination_token).toBeUndefined();
  });

  it('ListEmails lists across folders, so drafts and sent items appear', async () => {
    seedInbox();
    const draft = await ada.call('CreateDraftEmail', { subject: 'A draft', body: 'x', to_recipients: [GRACE] });
    await ada.call('CreateAndSendEmail', { subject: 'Sent one', body: 'x', to_recipients: [GRACE] });
    const all = await ada.call('ListEmails', { limit: 100 });
    expect(all.count).toBe(9);
    expect(all.messages.map((m: any) => m.subject)).toEqual(expect.arrayContaining(['A draft', 'Sent one']));
    expect(all.messages.find((m: any) => m.id === draft.id).isDraft).toBe(true);
  });

  it('ListEmails sorts by subject, sender address or importance, in either order', async () => {
    seedInbox();
    const subjects = async (input: Record<string, unknown>) => (await ada.call('ListEmails', { limit: 7, ...input })).messages.map((m: any) => m.subject);
    expect(await subjects({ sort_by: 'subject', sort_order: 'ascending' })).toEqual([
      'Report A',
      'Report B',
      'Report C',
      'Report D',
      'Report E',
      'Report F',
      'Report G',
    ]);
    expect(lastRequest().query.$orderby).toBe('subject');
    expect(await subjects({ sort_by: 'subject' })).toEqual(['Report G', 'Report F', 'Report E', 'Report D', 'Report C', 'Report B', 'Report A']);
    const senders = (await ada.call('ListEmails', { limit: 7, sort_by: 'sender_email_address', sort_order: 'ascending' })).messages.map(
      (m: any) => m.sender.emailAddress.address,
    );
    expect(lastRequest().query.$orderby).toBe('sender/emailAddress/address');
    expect(senders).toEqual(['amy@g.example', 'bob@b.example', 'carol@c.example', 'dave@d.example', 'erin@e.example', 'frank@f.example', 'zoe@a.example']);
    const importance = (await ada.call('ListEmails', { limit: 7, sort_by: 'importance', sort_order: 'ascending' })).messages.map((m: any) => m.importance);
    expect(importance).toEqual(['high', 'low', 'normal', 'normal', 'normal', 'normal', 'normal']);
    expect(await subjects({ sort_order: 'ascending' })).toEqual(['Report G', 'Report F', 'Report E', 'Report D', 'Report C', 'Report B', 'Report A']);
  });

  it('the page size is 1 to 100; the pagination token is the offset Graph hands out', async () => {
    seedInbox();
    expect((await ada.call('ListEmails', { limit: 100 })).count).toBe(7);
    expect((await ada.call('ListEmails', { limit: 1 })).pagination_token).toBe('1');
    for (const limit of [0, 101]) expect((await ada.refuse('ListEmails', { limit })).message).toMatch(/parameter 'limit' must be/);
    expect((await ada.refuse('ListEmailsByProperty', { property: 'subject', operator: 'eq', value: 'x', limit: 500 })).message).toMatch(
      /parameter 'limit' must be <= 100/,
    );
    expect((await ada.refuse('ListEmails', { pagination_token: 'https://graph.microsoft.com/v1.0/me/messages?$skip=5' })).message).toMatch(
      /parameter 'pagination_token' must match pattern/,
    );
  });

  it('a page cut to the response budget hands out the token of the first message it left out, so following it skips none', async () => {
    seedInbox();
    const budgeted = new ToolClient(mailClient, { upstream, token: 'ada-token', verbose: true, policy: new ServingPolicy({ maxResponseTokens: 700 }) });
    const first = await budgeted.attempt('ListEmails', { limit: 5 });
    if ('error' in first) throw new Error(first.error.message);
    const kept = (first.value as { messages: unknown[] }).messages.length;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(5);
    // Not "5", the page Graph named: that would skip the messages the cut left out.
    expect(first.value).toMatchObject({ pagination_token: String(kept) });
    expect(first.next_page).toEqual({ pagination_token: String(kept) });
    expect(first.note).toContain(
      `Showing the first ${kept} of 5 items of "messages". The next page starts at the first item left out: call this tool again with the same arguments and pagination_token: "${kept}".`,
    );

    const subjects: string[] = [];
    for (let args: Record<string, unknown> = { limit: 5 }, calls = 0; calls < 20; calls++) {
      const page = await budgeted.call('ListEmails', args);
      subjects.push(...page.messages.map((message: { subject: string }) => message.subject));
      if (page.pagination_token === undefined) break;
      args = { ...args, pagination_token: page.pagination_token };
    }
    expect(subjects).toEqual(['Report A', 'Report B', 'Report C', 'Report D', 'Report E', 'Report F', 'Report G']);
    await budgeted.close();
  });

  it('a field selection that matches nothing keeps the pagination token and names the dotted paths there are', async () => {
    seedInbox();
    const served = new ToolClient(mailClient, { upstream, token: 'ada-token', verbose: true, policy: new ServingPolicy() });
    const result = await served.attempt('ListEmails', { fields: ['subject'] });
    expect(result).toMatchObject({ value: { pagination_token: '5' } });
    expect('value' in result && Object.keys(result.value as object)).toEqual(['pagination_token']);
    expect('note' in result && result.note).toMatch(
      /^None of the fields subject is in the result\. Did you mean messages\.subject\? Paths it has include: messages, count, pagination_token, messages\.id, .*messages\.subject, /,
    );
    expect((await served.call('ListEmails', { fields: ['messages.subject'] })).messages).toEqual([
      { subject: 'Report A' },
      { subject: 'Report B' },
      { subject: 'Report C' },
      { subject: 'Report D' },
      { subject: 'Report E' },
    ]);
    await served.close();
  });

  it('ListEmailsInFolder reads one folder by well-known name or by id; starred lists flagged messages', async () => {
    seedInbox();
    await ada.call('CreateDraftEmail', { subject: 'In drafts', body: 'x', to_recipients: [GRACE] });
    const inbox = await ada.call('ListEmailsInFolder', { well_known_folder_name: 'inbox', limit: 10 });
    expect(lastRequest().path).toBe('/me/mailFolders/inbox/messages');
    expect(inbox.count).toBe(7);
    expect((await folder(ada, 'drafts')).map((m) => m.subject)).toEqual(['In drafts']);
    expect((await folder(ada, 'starred')).map((m) => m.subject)).toEqual(['Report A', 'Report D', 'Report G']);
    for (const empty of ['deleteditems', 'junkemail', 'sentitems', 'tasks']) expect(await folder(ada, empty), empty).toEqual([]);

    const byId = await ada.call('ListEmailsInFolder', { folder_id: inbox.messages[0].parentFolderId, sort_by: 'subject', sort_order: 'ascending', limit: 2 });
    expect(byId.messages.map((m: any) => m.subject)).toEqual(['Report A', 'Report B']);
    expect(byId.pagination_token).toBe('2');
    const next = await ada.call('ListEmailsInFolder', {
      folder_id: inbox.messages[0].parentFolderId,
      sort_by: 'subject',
      sort_order: 'ascending',
      limit: 2,
      pagination_token: '2',
    });
    expect(next.messages.map((m: any) => m.subject)).toEqual(['Report C', 'Report D']);

    expect(await ada.fail('ListEmailsInFolder', { folder_id: 'AAMkAFnowhere' })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
  });

  it('ListEmailsInFolder takes exactly one of well_known_folder_name and folder_id; anything else sends nothing', async () => {
    const both = await ada.refuse('ListEmailsInFolder', { well_known_folder_name: 'inbox', folder_id: 'AAMkAF1' });
    expect(both.message).toMatch(/give exactly one of well_known_folder_name and folder_id \(both were given\)/);
    const neither = await ada.refuse('ListEmailsInFolder', { limit: 3 });
    expect(neither.message).toMatch(/give exactly one of well_known_folder_name and folder_id \(neither was given\)/);
  });
});

describe('ListEmailsByProperty: property filters as OData $filter', () => {
  beforeEach(() => {
    const mail = (subject: string, address: string, day: number) =>
      emulator.receive('ada-token', { from: { name: address, address }, subject, body: subject, receivedDateTime: `2025-05-0${day}T12:00:00Z` });
    mail('Budget review', 'cfo@finance.example', 1);
    mail("Ada's budget, revised", 'cfo@finance.example', 2);
    mail('Team lunch', 'grace@contoso.example', 3);
    mail('Re: Budget review', 'bob@finance.example', 4);
    mail('Lunch menu', 'canteen@facilities.example', 5);
  });

  const subjectsFor = async (property: string, operator: string, value: string) =>
    (await ada.call('ListEmailsByProperty', { property, operator, value, limit: 100 })).messages.map((m: any) => m.subject).sort();

  it.each([
    ['subject', 'eq', 'budget review', "subject eq 'budget review'", ['Budget review']],
    ['subject', 'ne', 'Budget review', "subject ne 'Budget review'", ["Ada's budget, revised", 'Lunch menu', 'Re: Budget review', 'Team lunch']],
    ['subject', 'startsWith', 'Budget', "startsWith(subject,'Budget')", ['Budget review']],
    ['subject', 'endsWith', 'REVIEW', "endsWith(subject,'REVIEW')", ['Budget review', 'Re: Budget review']],
    ['subject', 'contains', 'lunch', "contains(subject,'lunch')", ['Lunch menu', 'Team lunch']],
    ['subject', 'contains', "Ada's", "contains(subject,'Ada''s')", ["Ada's budget, revised"]],
    [
      'sender/emailAddress/address',
      'endsWith',
      '@finance.example',
      "endsWith(sender/emailAddress/address,'@finance.example')",
      ["Ada's budget, revised", 'Budget review', 'Re: Budget review'],
    ],
    ['receivedDateTime', 'gt', '2025-05-03T12:00:00Z', 'receivedDateTime gt 2025-05-03T12:00:00Z', ['Lunch menu', 'Re: Budget review']],
    ['receivedDateTime', 'ge', '2025-05-03T12:00:00Z', 'receivedDateTime ge 2025-05-03T12:00:00Z', ['Lunch menu', 'Re: Budget review', 'Team lunch']],
    ['receivedDateTime', 'lt', '2025-05-02', 'receivedDateTime lt 2025-05-02T00:00:00Z', ['Budget review']],
    ['receivedDateTime', 'le', '2025-05-02T12:00:00+00:00', 'receivedDateTime le 2025-05-02T12:00:00+00:00', ["Ada's budget, revised", 'Budget review']],
  ])('%s %s %s', async (property, operator, value, filter, expected) => {
    expect(await subjectsFor(property, operator, value)).toEqual(expected);
    expect(lastRequest().query.$filter).toBe(filter);
  });

  it('conversationId eq finds a whole thread', async () => {
    const original = await receivedByAda('Thread start');
    await ada.call('ReplyToEmail', { message_id: original.id, body: 'answer' });
    const thread = await ada.call('ListEmailsByProperty', { property: 'conversationId', operator: 'eq', value: original.conversationId });
    expect(thread.messages.map((m: any) => m.subject).sort()).toEqual(['RE: Thread start', 'Thread start']);
  });

  it('pages like the other lists', async () => {
    const first = await ada.call('ListEmailsByProperty', { property: 'receivedDateTime', operator: 'ge', value: '2025-05-01', limit: 2 });
    expect(first.messages.map((m: any) => m.subject)).toEqual(['Lunch menu', 'Re: Budget review']);
    const second = await ada.call('ListEmailsByProperty', {
      property: 'receivedDateTime',
      operator: 'ge',
      value: '2025-05-01',
      limit: 2,
      pagination_token: first.pagination_token,
    });
    expect(lastRequest().query).toMatchObject({ $filter: 'receivedDateTime ge 2025-05-01T00:00:00Z', $skip: '2' });
    expect(second.messages.map((m: any) => m.subject)).toEqual(['Team lunch', "Ada's budget, revised"]);
  });

  it('receivedDateTime takes comparisons and an ISO date; anything else is refused before sending', async () => {
    for (const operator of ['startsWith', 'endsWith', 'contains']) {
      expect((await ada.refuse('ListEmailsByProperty', { property: 'receivedDateTime', operator, value: '2025' })).message).toMatch(
        /does not apply to receivedDateTime/,
      );
    }
    for (const value of ['yesterday', '2025-13-45', '2025-05-01T10:00']) {
      expect((await ada.refuse('ListEmailsByProperty', { property: 'receivedDateTime', operator: 'gt', value })).message).toMatch(/is not an ISO 8601 date/);
    }
  });

  it('the emulator refuses a $filter it cannot parse, as Graph does', async () => {
    const response = await fetch(`${emulator.url}/me/messages?$filter=${encodeURIComponent("subject eq 'open")}`, {
      headers: { authorization: 'Bearer ada-token' },
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/Invalid filter clause/);
  });
});

describe('the profile', () => {
  it('WhoAmI combines the profile, the mailbox settings and the automatic replies', async () => {
    emulator.updateMailboxSettings('ada-token', {
      timeZone: 'Europe/London',
      automaticRepliesSetting: {
        status: 'scheduled',
        externalAudience: 'contactsOnly',
        internalReplyMessage: 'Away until Monday.',
        externalReplyMessage: 'I am out of the office.',
        scheduledStartDateTime: { dateTime: '2025-05-16T17:00:00.0000000', timeZone: 'Europe/London' },
        scheduledEndDateTime: { dateTime: '2025-05-19T09:00:00.0000000', timeZone: 'Europe/London' },
      },
    });
    const { result, sent } = await ada.sentDuring(() => ada.call('WhoAmI'));
    expect(sent.map((r) => [r.path, r.query]).sort()).toEqual([
      ['/me', {}],
      ['/me', { $select: 'mailboxSettings' }],
    ]);
    expect(result.profile).toMatchObject({
      displayName: 'Ada Lovelace',
      mail: ADA,
      userPrincipalName: ADA,
      givenName: 'Ada',
      jobTitle: 'Analyst',
      id: emulator.mailboxFor('ada-token').id,
    });
    expect(result.mailbox_settings).toMatchObject({
      timeZone: 'Europe/London',
      language: { locale: 'en-US' },
      workingHours: { startTime: '09:00:00.0000000' },
    });
    expect(result.mailbox_settings.automaticRepliesSetting).toBeUndefined();
    expect(result.automatic_replies).toMatchObject({ status: 'scheduled', externalAudience: 'contactsOnly', internalReplyMessage: 'Away until Monday.' });
  });
});

describe('bad input is refused before anything is sent', () => {
  const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['missing required', 'CreateAndSendEmail', { subject: 's', body: 'b' }, /parameter 'to_recipients' is required/],
    ['no recipients', 'CreateDraftEmail', { subject: 's', body: 'b', to_recipients: [] }, /parameter 'to_recipients' must NOT have fewer than 1 items/],
    ['not an address', 'CreateAndSendEmail', { subject: 's', body: 'b', to_recipients: ['grace'] }, /must match format "email"/],
    ['wrong type', 'CreateDraftEmail', { subject: 's', body: 'b', to_recipients: GRACE }, /parameter 'to_recipients' must be an? array/],
    ['wrong item type', 'UpdateDraftEmail', { message_id: 'm', cc_add: [42] }, /must be a string/],
    ['bad body type', 'CreateAndSendEmail', { subject: 's', body: 'b', to_recipients: [GRACE], body_type: 'markdown' }, /parameter 'body_type' must be one of/],
    ['bad sort', 'ListEmails', { sort_by: 'size' }, /parameter 'sort_by' must be one of/],
    ['bad operator', 'ListEmailsByProperty', { property: 'subject', operator: 'like', value: 'x' }, /parameter 'operator' must be one of/],
    ['bad property', 'ListEmailsByProperty', { property: 'body', operator: 'eq', value: 'x' }, /parameter 'property' must be one of/],
    ['bad folder name', 'ListEmailsInFolder', { well_known_folder_name: 'outbox' }, /parameter 'well_known_folder_name' must be one of/],
    ['bad reply type', 'ReplyToEmail', { message_id: 'm', body: 'b', reply_type: 'forward' }, /parameter 'reply_type' must be one of/],
    ['unknown parameter', 'SendDraftEmail', { message_id: 'm', save_copy: true }, /'save_copy'/],
    ['empty id', 'SendDraftEmail', { message_id: '' }, /parameter 'message_id'/],
    ['limit as text', 'ListEmails', { limit: '10' }, /parameter 'limit' must be an? integer/],
  ];

  it.each(cases)('%s (%s)', async (_label, tool, input, message) => {
    const error = await ada.refuse(tool, input);
    expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    expect(error.message).toMatch(message);
  });

  it('a call without a Microsoft token is refused with the scopes it needs', async () => {
    const anonymous = new ToolClient(mailClient, { upstream, verbose: true });
    const error = await anonymous.refuse('SendDraftEmail', { message_id: 'm' });
    expect(error).toMatchObject({
      kind: 'TOOL_REQUIREMENTS_NOT_MET',
      message: expect.stringContaining('microsoft OAuth token with scopes: Mail.Read, Mail.Send'),
    });
  });
});

describe('catalog', () => {
  it('every tool needs a microsoft token; WhoAmI also asks for MailboxSettings.Read', () => {
    for (const tool of catalog.tools) expect(tool.requirements.oauth2.provider, tool.name).toBe('microsoft');
    expect(catalog.tools.find((tool) => tool.name === 'WhoAmI')!.requirements.oauth2.scopes).toEqual(['User.Read', 'Mail.Read', 'MailboxSettings.Read']);
  });
});

describe('coverage', () => {
  it('every one of the 9 catalog tools was called successfully through the runtime', () => {
    expect(catalog.tools).toHaveLength(9);
    const missing = catalog.tools.map((tool) => tool.name).filter((name) => !covered.has(name));
    expect(missing, `tools never called successfully: ${missing.join(', ')}`).toEqual([]);
  });
});
