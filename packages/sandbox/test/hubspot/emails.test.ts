import { describe, expect, it } from 'vitest';
import { DAY, UUID, useEmulator } from './hubspot.helpers.js';

const JAN_15 = Date.UTC(2025, 0, 15, 12);

const hub = useEmulator(JAN_15);

const emails = '/marketing/v3/emails';

async function createEmail(fields: Record<string, unknown> = {}): Promise<string> {
  const reply = await hub.call('POST', `${emails}/`, { body: { name: 'Welcome', subject: 'Hello', language: 'en', ...fields } });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

const get = async (path: string) => (await hub.call('GET', path)).body;
const post = async (path: string) => (await hub.call('POST', path)).status;
const revisionIds = async (id: string) => (await get(`${emails}/${id}/revisions`)).results.map((r: any) => r.id);

describe('marketing emails', () => {
  it('creates an unpublished draft email, lists and reads it', async () => {
    const created = await hub.call('POST', `${emails}/`, {
      body: { name: 'Welcome', subject: 'Hello', businessUnitId: 7, content: { plainTextVersion: 'Hi' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^\d+$/), name: 'Welcome', state: 'DRAFT', isPublished: false, businessUnitId: '7' });
    expect(await get(`${emails}/${created.body.id}`)).toEqual(created.body);
    await createEmail({ name: 'Second' });
    const list = await get(`${emails}/`);
    expect(list.total).toBe(2);
    expect(list.results.map((e: any) => e.name)).toEqual(['Welcome', 'Second']);
    expect((await hub.call('GET', `${emails}/999`)).status).toBe(404);
  });

  it('updates properties as a new version, archiving the previous one as a revision', async () => {
    const id = await createEmail();
    const updated = await hub.call('PATCH', `${emails}/${id}`, { body: { subject: 'Hello again', state: 'AUTOMATED_DRAFT' } });
    expect(updated.body).toMatchObject({ name: 'Welcome', subject: 'Hello again', state: 'AUTOMATED_DRAFT' });
    expect(await revisionIds(id)).toEqual(['1']);
    const revision = await get(`${emails}/${id}/revisions/1`);
    expect(revision.object).toMatchObject({ id, subject: 'Hello', state: 'DRAFT' });
    expect(revision.user).toEqual({ id: '1000001', email: expect.any(String), fullName: expect.any(String) });
  });

  it('returns the published version as the draft while no draft exists', async () => {
    const id = await createEmail();
    const live = await get(`${emails}/${id}`);
    expect(await get(`${emails}/${id}/draft`)).toEqual(live);

    const drafted = await hub.call('PATCH', `${emails}/${id}/draft`, { body: { subject: 'Draft subject' } });
    expect(drafted.status).toBe(200);
    expect(drafted.body.subject).toBe('Draft subject');
    expect((await get(`${emails}/${id}/draft`)).subject).toBe('Draft subject');
    expect((await get(`${emails}/${id}`)).subject).toBe('Hello');
  });

  it('resets the draft to a copy of the live version, discarding draft changes', async () => {
    const id = await createEmail();
    await hub.call('PATCH', `${emails}/${id}/draft`, { body: { subject: 'Discard me', name: 'Renamed' } });
    expect(await post(`${emails}/${id}/draft/reset`)).toBe(204);
    const draft = await get(`${emails}/${id}/draft`);
    expect(draft).toMatchObject({ subject: 'Hello', name: 'Welcome' });
    expect(draft.subject).toBe((await get(`${emails}/${id}`)).subject);
  });

  it('publishes the draft (state PUBLISHED) and unpublishes a published email', async () => {
    const id = await createEmail();
    await hub.call('PATCH', `${emails}/${id}/draft`, { body: { subject: 'Final subject' } });
    expect(await post(`${emails}/${id}/publish`)).toBe(204);
    const published = await get(`${emails}/${id}`);
    expect(published).toMatchObject({ state: 'PUBLISHED', isPublished: true, subject: 'Final subject', publishedAt: expect.stringMatching(/^2025-01-15T/) });
    expect(await revisionIds(id)).toEqual(['1']);
    expect((await get(`${emails}/${id}/draft`)).subject).toBe('Final subject');

    hub.emulator.clock.advance(DAY);
    expect(await post(`${emails}/${id}/unpublish`)).toBe(204);
    const withdrawn = await get(`${emails}/${id}`);
    expect(withdrawn).toMatchObject({ state: 'DRAFT', isPublished: false, subject: 'Final subject', unpublishedAt: expect.stringMatching(/^2025-01-16T/) });
    const again = await hub.call('POST', `${emails}/${id}/unpublish`);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(`email ${id} is not published`);
    expect(await post(`${emails}/999/publish`)).toBe(404);
  });

  it('restores a revision as the current version under a new version number, archiving the current one', async () => {
    const id = await createEmail({ subject: 'Version 1' });
    await hub.call('PATCH', `${emails}/${id}`, { body: { subject: 'Version 2' } });
    expect(await post(`${emails}/${id}/revisions/1/restore`)).toBe(204);
    expect((await get(`${emails}/${id}`)).subject).toBe('Version 1');
    expect(await revisionIds(id)).toEqual(['2', '1']);
    expect((await get(`${emails}/${id}/revisions/2`)).object.subject).toBe('Version 2');

    // The restored content became version 3: the next change archives it under that number.
    await hub.call('PATCH', `${emails}/${id}`, { body: { subject: 'Version 4' } });
    expect(await revisionIds(id)).toEqual(['3', '2', '1']);
    expect((await get(`${emails}/${id}/revisions/3`)).object.subject).toBe('Version 1');
    expect(await post(`${emails}/${id}/revisions/9/restore`)).toBe(404);
    expect((await hub.call('GET', `${emails}/${id}/revisions/latest`)).status).toBe(404);
  });

  it('restores a revision to the draft, overwriting the draft and leaving the live version alone', async () => {
    const id = await createEmail({ subject: 'Version 1' });
    await hub.call('PATCH', `${emails}/${id}`, { body: { subject: 'Version 2' } });
    await hub.call('PATCH', `${emails}/${id}/draft`, { body: { subject: 'Work in progress' } });
    const restored = await hub.call('POST', `${emails}/${id}/revisions/1/restore-to-draft`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id, subject: 'Version 1' });
    expect((await get(`${emails}/${id}/draft`)).subject).toBe('Version 1');
    expect((await get(`${emails}/${id}`)).subject).toBe('Version 2');
    await post(`${emails}/${id}/publish`);
    expect((await get(`${emails}/${id}`)).subject).toBe('Version 1');
  });

  it('clones an email with a new name and language', async () => {
    const id = await createEmail();
    const named = await hub.call('POST', `${emails}/clone`, { body: { id, cloneName: 'Welcome (FR)', language: 'fr' } });
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({ name: 'Welcome (FR)', language: 'fr', subject: 'Hello', clonedFrom: id, state: 'DRAFT' });
    expect(named.body.id).not.toBe(id);
    const unnamed = await hub.call('POST', `${emails}/clone`, { body: { id } });
    expect(unnamed.body).toMatchObject({ name: 'Welcome (clone)', language: 'en' });
    const badLanguage = await hub.call('POST', `${emails}/clone`, { body: { id, language: 'klingon' } });
    expect(badLanguage.status).toBe(400);
    expect(badLanguage.body.message).toMatch(/^language must be a language code/);
    expect((await hub.call('POST', `${emails}/clone`, { body: { id: '999' } })).status).toBe(404);
  });

  it('creates an A/B variation and finds each side from the other', async () => {
    const id = await createEmail();
    expect((await hub.call('GET', `${emails}/${id}/ab-test/get-variation`)).status).toBe(404);
    const variation = await hub.call('POST', `${emails}/ab-test/create-variation`, { body: { contentId: id, variationName: 'Welcome B' } });
    expect(variation.status).toBe(201);
    expect(variation.body).toMatchObject({ name: 'Welcome B', subject: 'Hello', isAb: true, testing: { isAbVariation: true, abStatus: 'variant' } });
    expect((await get(`${emails}/${id}/ab-test/get-variation`)).id).toBe(variation.body.id);
    const master = await get(`${emails}/${variation.body.id}/ab-test/get-variation`);
    expect(master).toMatchObject({ id, isAb: true, testing: { isAbVariation: false, abStatus: 'master' } });
    const second = await hub.call('POST', `${emails}/ab-test/create-variation`, { body: { contentId: id, variationName: 'Welcome C' } });
    expect(second.status).toBe(400);
  });

  it('deletes an email, and its A/B partner forgets it', async () => {
    const id = await createEmail();
    const variation = (await hub.call('POST', `${emails}/ab-test/create-variation`, { body: { contentId: id, variationName: 'B' } })).body.id;
    expect((await hub.call('DELETE', `${emails}/${variation}`)).status).toBe(204);
    expect((await hub.call('GET', `${emails}/${variation}`)).status).toBe(404);
    expect((await get(`${emails}/${id}`)).isAb).toBe(false);
    expect((await hub.call('DELETE', `${emails}/${variation}`)).status).toBe(404);
  });
});

describe('sending', () => {
  const message = (to: string) => ({ to, from: 'team@example.com' });

  it('sends a transactional email asynchronously, for emails that exist', async () => {
    const id = await createEmail();
    const sent = await hub.call('POST', '/marketing/v3/transactional/single-email/send', {
      body: { emailId: Number(id), message: message('ada@example.com') },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ statusId: expect.stringMatching(UUID), status: 'PENDING' });
    const missing = await hub.call('POST', '/marketing/v3/transactional/single-email/send', { body: { emailId: 999, message: message('ada@example.com') } });
    expect(missing.status).toBe(404);
    expect(hub.emulator.db.prepare('SELECT channel, recipient FROM email_sends').all()).toEqual([{ channel: 'transactional', recipient: 'ada@example.com' }]);
  });

  it('sends a marketing email only once it is published', async () => {
    const id = await createEmail();
    const body = { emailId: Number(id), message: message('grace@example.com'), contactProperties: { firstname: 'Grace' } };
    const unpublished = await hub.call('POST', '/marketing/v4/email/single-send', { body });
    expect(unpublished.status).toBe(400);
    expect(unpublished.body.message).toMatch(/is not published/);
    await post(`${emails}/${id}/publish`);
    const sent = await hub.call('POST', '/marketing/v4/email/single-send', { body });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ statusId: expect.stringMatching(UUID), status: 'PENDING' });
    expect((await hub.call('POST', '/marketing/v4/email/single-send', { body: { ...body, emailId: 999 } })).status).toBe(404);
  });

  it('computes statistics and a daily histogram from the recorded sends', async () => {
    const empty = await get(`${emails}/statistics/histogram`);
    expect(empty).toEqual({ total: 0, results: [] });

    const welcome = await createEmail({ campaign: 'campaign-1' });
    const other = await createEmail({ name: 'Other' });
    await post(`${emails}/${welcome}/publish`);
    const send = (emailId: string, path = '/marketing/v4/email/single-send') =>
      hub.call('POST', path, { body: { emailId: Number(emailId), message: message('x@example.com') } });
    await send(welcome);
    hub.emulator.clock.advance(2 * DAY);
    await send(welcome);
    await send(other, '/marketing/v3/transactional/single-email/send');

    const statistics = await get(`${emails}/statistics/list`);
    expect(statistics.emails).toEqual([Number(welcome), Number(other)]);
    expect(statistics.aggregate.counters).toEqual({ sent: 3 });
    expect(statistics.campaignAggregations).toEqual({ 'campaign-1': expect.objectContaining({ counters: { sent: 2 } }) });

    const histogram = await get(`${emails}/statistics/histogram`);
    expect(histogram.total).toBe(3);
    expect(histogram.results.map((r: any) => [r.interval.start, r.aggregations.counters.sent])).toEqual([
      ['2025-01-15T00:00:00.000Z', 1],
      ['2025-01-16T00:00:00.000Z', 0],
      ['2025-01-17T00:00:00.000Z', 2],
    ]);
  });
});
