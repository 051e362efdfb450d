/**
 * End-to-end tests of every TrackingApi tool through the core Runtime against the Customer.io
 * emulator (which refuses any request that does not match its operation): HTTP Basic credentials,
 * the translation of trk_ identifiers into Customer.io's cio_ form, every state-table row of the
 * tracking toolkit, the 1000-id segment limit, and bad input per parameter shape with nothing sent.
 * The Track API only writes, so effects are read from the emulator's workspace view. The last test
 * checks that all 17 catalog tools were called successfully.
 */
import { createClock, startCustomerioEmulator, type CustomerioEmulator, type WorkspaceView } from '@quiver/sandbox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { catalog, daysBefore, OK, TrackClient } from './tracking.helpers.js';

const START = Date.UTC(2025, 5, 1, 12);
const CREDENTIALS = { siteId: 'site-4711', apiKey: 'track-key-0815' };

const covered = new Set<string>();
let emulator: CustomerioEmulator;
let track: TrackClient;
let workspace: WorkspaceView;

beforeAll(async () => {
  emulator = await startCustomerioEmulator({ clock: createClock(START) });
  track = new TrackClient(emulator.url, CREDENTIALS, covered);
});

afterAll(async () => {
  await emulator?.close();
});

beforeEach(() => {
  emulator.reset();
  emulator.clock.set(START);
  workspace = emulator.workspace(CREDENTIALS);
});

/** Runs `work` and asserts that the emulator received no request meanwhile. */
async function expectNothingSent<T>(work: () => Promise<T>): Promise<T> {
  const before = emulator.requests.length;
  const result = await work();
  expect(emulator.requests.length, 'requests the emulator received').toBe(before);
  return result;
}

const lastRequest = () => emulator.requests.at(-1)!;

const identify = (identifier: string, body: Record<string, unknown>) => track.execute('UpdateOrAddPerson', { person_identifier: identifier }, body);

/** A person's trk_id, as a caller writes it. */
const trkIdOf = (identifier: string) => `trk_${workspace.person(identifier)!.cio_id}`;

// ------------------------------------------------------------------------------------------------

describe('credentials and regions', () => {
  it('sends the site id and API key as HTTP Basic credentials of the workspace', async () => {
    expect(await identify('ada', { first_name: 'Ada' })).toEqual(OK);
    // The emulator files the person under the workspace those credentials name.
    expect(workspace.person('ada')?.attributes).toEqual({ first_name: 'Ada' });
    expect(emulator.workspace({ siteId: 'site-other', apiKey: 'other-key' }).person('ada')).toBeUndefined();
  });

  it('refuses a wrong API key as an auth error with the credentials redacted', async () => {
    const wrong = new TrackClient(emulator.url, { siteId: CREDENTIALS.siteId, apiKey: 'not-the-key' }, covered);
    const error = await wrong.fail('DeleteCustomer', { customer_identifier: 'ada' });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_AUTH_ERROR', status_code: 401 });
    expect(JSON.stringify(error)).not.toContain('not-the-key');
  });

  it('needs both secrets and sends nothing without them', async () => {
    const keyless = new TrackClient(emulator.url, { siteId: CREDENTIALS.siteId }, covered);
    const error = await expectNothingSent(() => keyless.fail('GetTrackApiRegion', {}));
    expect(error).toMatchObject({ kind: 'TOOL_REQUIREMENTS_NOT_MET', message: expect.stringContaining('TRACKING_API_KEY') });
  });

  it('GetTrackApiRegion tells the region, base URL and environment of the credentials', async () => {
    expect(await track.call('GetTrackApiRegion')).toEqual({ region: 'us', url: 'https://track.customer.io', environment_id: workspace.environmentId });

    const euCredentials = { siteId: 'site-eu', apiKey: 'eu-key' };
    const eu = emulator.workspace({ ...euCredentials, region: 'eu' });
    const onEuHost = new TrackClient(emulator.euUrl, euCredentials, covered);
    expect(await onEuHost.call('GetTrackApiRegion')).toEqual({ region: 'eu', url: 'https://track-eu.customer.io', environment_id: eu.environmentId });
    // Customer.io forwards an EU workspace's calls from the US host ...
    const onUsHost = new TrackClient(emulator.url, euCredentials, covered);
    expect((await onUsHost.call('GetTrackApiRegion')).region).toBe('eu');
    // ... but a US workspace cannot use the EU host.
    const usOnEuHost = new TrackClient(emulator.euUrl, CREDENTIALS, covered);
    const error = await usOnEuHost.fail('GetTrackApiRegion', {});
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_AUTH_ERROR', message: expect.stringContaining('https://track.customer.io') });
  });
});

describe('people: UpdateOrAddPerson', () => {
  it('adds a person and updates their attributes; an empty string removes one', async () => {
    await identify('ada', { email: 'ada@example.com', first_name: 'Ada', plan: 'free', vip: false, created_at: 1_700_000_000 });
    expect(workspace.person('ada')).toMatchObject({
      id: 'ada',
      email: 'ada@example.com',
      attributes: { first_name: 'Ada', plan: 'free', vip: false, created_at: 1_700_000_000 },
    });

    await identify('ada', { plan: 'pro', vip: '' });
    expect(workspace.person('ada')!.attributes).toEqual({ first_name: 'Ada', plan: 'pro', created_at: 1_700_000_000 });
    // The email, compared without case, names the same person.
    await identify('ADA@example.com', { city: 'London' });
    expect(workspace.people()).toHaveLength(1);
    expect(workspace.person('ada')!.attributes.city).toBe('London');
  });

  it('changes identifiers only when the person is addressed by trk_id, sent as cio_', async () => {
    await identify('ada@example.com', { id: 'ada', first_name: 'Ada' });
    expect(workspace.person('ada')!.email).toBe('ada@example.com');
    const trkId = trkIdOf('ada');

    await identify(trkId, { id: 'ada-2', email: 'countess@example.com' });
    expect(lastRequest().path).toBe(`/api/v1/customers/cio_${trkId.slice(4)}`);
    expect(workspace.person(trkId.replace('trk_', 'cio_'))).toMatchObject({ id: 'ada-2', email: 'countess@example.com', attributes: { first_name: 'Ada' } });
    expect(workspace.person('ada')).toBeUndefined();
  });

  it('reports conflicting identifiers as an Attribute Update Failure, keeping both people', async () => {
    await identify('ada', { email: 'ada@example.com' });
    await identify('grace', { email: 'grace@example.com' });
    const grace = workspace.person('grace')!;

    // Customer.io answers 200: the failure only shows in the activity log.
    expect(await identify('ada', { email: 'grace@example.com', plan: 'pro' })).toEqual(OK);
    expect(workspace.person('ada')).toMatchObject({ email: 'ada@example.com', attributes: { plan: 'pro' } });
    expect(workspace.person('grace')!.email).toBe('grace@example.com');
    expect(workspace.activities()).toEqual([
      {
        type: 'failed_attribute_change',
        person: workspace.person('ada')!.cio_id,
        detail: {
          name: 'Attribute Update Failure',
          attribute: 'email',
          value: 'grace@example.com',
          reason: 'email already belongs to another person',
          conflicting_cio_id: grace.cio_id,
        },
        at: Math.floor(START / 1000),
      },
    ]);

    // An id cannot be changed by addressing the person by id either.
    await identify('ada', { id: 'ada-renamed' });
    expect(workspace.person('ada')).toBeDefined();
    expect(workspace.activities().at(-1)).toMatchObject({ type: 'failed_attribute_change', detail: { attribute: 'id', value: 'ada-renamed' } });
  });

  it('gives an unknown path id to the person an email in the body names', async () => {
    await identify('ada@example.com', { first_name: 'Ada' });
    await identify('ada', { email: 'ada@example.com' });
    expect(workspace.people()).toHaveLength(1);
    expect(workspace.person('ada')).toMatchObject({ email: 'ada@example.com', attributes: { first_name: 'Ada' } });
  });

  it('drops updates for an unknown trk_id, and _update never creates a person', async () => {
    expect(await identify('trk_0000deadbeef', { first_name: 'Nobody' })).toEqual(OK);
    expect(await identify('newcomer', { _update: true, first_name: 'New' })).toEqual(OK);
    expect(workspace.people()).toEqual([]);
  });
});

describe('state table: person profiles', () => {
  it('DeleteCustomer deletes the person; new data recreates them without the old data', async () => {
    const segment = workspace.createSegment('Readers');
    await identify('ada', { email: 'ada@example.com', plan: 'pro' });
    await track.execute('AddDeviceToCustomerProfile', { unique_person_identifier: 'ada' }, { device: { id: 'token-1', platform: 'ios' } });
    await track.execute('AddPeopleToSegment', { segment_identifier: segment }, { ids: ['ada'] });
    const before = workspace.person('ada')!;

    expect(await track.call('DeleteCustomer', { customer_identifier: 'ada' })).toEqual(OK);
    expect(workspace.person('ada')).toBeUndefined();
    expect(workspace.segmentMembers(segment)).toEqual([]);
    // Deleting someone who is not there succeeds and changes nothing.
    expect(await track.call('DeleteCustomer', { customer_identifier: 'ada' })).toEqual(OK);

    await track.execute('SendCustomerEvent', { customer_identifier: 'ada' }, { name: 'came_back' });
    const after = workspace.person('ada')!;
    expect(after.cio_id).not.toBe(before.cio_id);
    expect(after).toMatchObject({ email: null, attributes: {}, devices: [], segments: [] });
    expect(after.events.map((event) => event.name)).toEqual(['came_back']);
  });

  it('SuppressCustomerProfile deletes the person and blocks both identifiers', async () => {
    await identify('ada', { email: 'ada@example.com', plan: 'pro' });
    expect(await track.call('SuppressCustomerProfile', { unique_person_identifier: 'ada' })).toEqual(OK);
    expect(workspace.person('ada')).toBeUndefined();
    expect(workspace.isSuppressed('ada')).toBe(true);
    expect(workspace.isSuppressed('ADA@example.com')).toBe(true);

    // Every later call naming either identifier is ignored.
    await identify('ada', { plan: 'free' });
    await identify('ada@example.com', { plan: 'free' });
    await identify('someone-else', { email: 'ada@example.com' });
    await track.execute('SendCustomerEvent', { customer_identifier: 'ada' }, { name: 'ignored' });
    expect(workspace.people()).toEqual([]);
  });

  it('UnsuppressCustomerProfile frees the identifiers without restoring the data', async () => {
    await identify('ada', { email: 'ada@example.com', plan: 'pro' });
    await track.call('SuppressCustomerProfile', { unique_person_identifier: 'ada@example.com' });

    expect(await track.call('UnsuppressCustomerProfile', { customer_identifier: 'ada@example.com' })).toEqual(OK);
    expect(workspace.isSuppressed('ada')).toBe(false);
    expect(workspace.isSuppressed('ada@example.com')).toBe(false);
    expect(workspace.person('ada')).toBeUndefined();

    await identify('ada', { first_name: 'Ada' });
    expect(workspace.person('ada')).toMatchObject({ email: null, attributes: { first_name: 'Ada' } });
  });

  it('MergeCustomerProfiles moves unfilled attributes, recent events, segments, journeys and deliveries, and deletes the secondary', async () => {
    const readers = workspace.createSegment('Readers');
    const welcome = workspace.createCampaign('Welcome', 'signed_up');
    await identify('primary', { plan: 'pro', nickname: '' });
    await identify('dup@example.com', { plan: 'free', city: 'Paris', nickname: 'Dup' });
    const secondaryTrkId = trkIdOf('dup@example.com');
    await identify(secondaryTrkId, { id: 'dup' });
    await track.execute('AddPeopleToSegment', { segment_identifier: readers, identifier_type: 'email' }, { ids: ['dup@example.com'] });
    await track.execute('SendCustomerEvent', { customer_identifier: 'dup' }, { name: 'signed_up' });
    await track.execute('SendCustomerEvent', { customer_identifier: 'dup' }, { name: 'old_visit', timestamp: daysBefore(START, 40) });
    const secondary = workspace.person('dup')!;
    expect(secondary.journeys.map((journey) => journey.campaign_id)).toEqual([welcome]);

    expect(await track.execute('MergeCustomerProfiles', {}, { primary: { id: 'primary' }, secondary: { trk_id: secondaryTrkId } })).toEqual(OK);
    expect(lastRequest().body).toEqual({ primary: { id: 'primary' }, secondary: { cio_id: secondary.cio_id } });

    expect(workspace.person(`cio_${secondary.cio_id}`)).toBeUndefined();
    const primary = workspace.person('primary')!;
    // The primary keeps its own values, gains unfilled ones, and the identifiers the secondary freed.
    expect(primary).toMatchObject({ email: 'dup@example.com', attributes: { plan: 'pro', city: 'Paris', nickname: 'Dup' } });
    expect(primary.events.map((event) => [event.name, event.merged])).toEqual([['signed_up', true]]);
    expect(primary.segments).toEqual([readers]);
    expect(primary.journeys.map((journey) => journey.campaign_id)).toEqual([welcome]);
    expect(primary.deliveries.map((delivery) => delivery.delivery_id)).toEqual(secondary.deliveries.map((delivery) => delivery.delivery_id));
  });

  it('MergeCustomerProfiles needs both people to exist', async () => {
    await identify('dup', { plan: 'free' });
    const error = await track.failExecute('MergeCustomerProfiles', {}, { primary: { email: 'nobody@example.com' }, secondary: { id: 'dup' } });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND', message: expect.stringContaining('primary person') });
    expect(workspace.person('dup')).toBeDefined();
  });
});

describe('state table: segments, devices, unsubscribe', () => {
  it('AddPeopleToSegment adds people to a manual segment by id, email or trk_id', async () => {
    const segment = workspace.createSegment('Beta testers');
    for (const id of ['ada', 'grace', 'linus']) await identify(id, { email: `${id}@example.com` });
    await identify('only-email@example.com', { plan: 'free' });

    await track.execute('AddPeopleToSegment', { segment_identifier: segment }, { ids: ['ada', 'nobody'] });
    await track.execute(
      'AddPeopleToSegment',
      { segment_identifier: segment, identifier_type: 'email' },
      { ids: ['grace@example.com', 'only-email@example.com'] },
    );
    const linus = trkIdOf('linus');
    await track.execute('AddPeopleToSegment', { segment_identifier: segment, identifier_type: 'trk_id' }, { ids: [linus] });
    expect(lastRequest()).toMatchObject({ query: { id_type: 'cio_id' }, body: { ids: [linus.slice(4)] } });

    // Unknown identifiers and people without an id attribute are skipped.
    const cioIds = ['ada', 'grace', 'linus'].map((id) => workspace.person(id)!.cio_id);
    expect(workspace.segmentMembers(segment)).toEqual(cioIds);
    expect(workspace.person('ada')!.segments).toEqual([segment]);
  });

  it('RemoveUserFromSegment removes members of a manual segment', async () => {
    const segment = workspace.createSegment('Beta testers');
    for (const id of ['ada', 'grace']) await identify(id, { email: `${id}@example.com` });
    await track.execute('AddPeopleToSegment', { segment_identifier: segment }, { ids: ['ada', 'grace'] });

    expect(await track.execute('RemoveUserFromSegment', { segment_identifier: segment, identification_type: 'email' }, { ids: ['ada@example.com'] })).toEqual(
      OK,
    );
    expect(workspace.segmentMembers(segment)).toEqual([workspace.person('grace')!.cio_id]);
    await track.execute('RemoveUserFromSegment', { segment_identifier: segment, identification_type: 'trk_id' }, { ids: [trkIdOf('grace')] });
    expect(workspace.segmentMembers(segment)).toEqual([]);
  });

  it('changes manual segments only, and only existing ones', async () => {
    const dataDriven = workspace.createSegment('Active users', 'data');
    await identify('ada', {});
    for (const tool of ['AddPeopleToSegment', 'RemoveUserFromSegment']) {
      const error = await track.failExecute(tool, { segment_identifier: dataDriven }, { ids: ['ada'] });
      expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_BAD_REQUEST', message: expect.stringContaining('data-driven') });
    }
    expect(await track.failExecute('AddPeopleToSegment', { segment_identifier: 999 }, { ids: ['ada'] })).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND' });
    expect(workspace.segmentMembers(dataDriven)).toEqual([]);
  });

  it('takes at most 1000 ids per request: 1000 pass, 1001 are refused before sending', async () => {
    const segment = workspace.createSegment('Everyone');
    await identify('person-999', {});
    const ids = Array.from({ length: 1000 }, (_, i) => `person-${i}`);
    expect(await track.execute('AddPeopleToSegment', { segment_identifier: segment }, { ids })).toEqual(OK);
    expect(workspace.segmentMembers(segment)).toHaveLength(1);

    for (const tool of ['AddPeopleToSegment', 'RemoveUserFromSegment']) {
      const error = await expectNothingSent(() => track.failExecute(tool, { segment_identifier: segment }, { ids: [...ids, 'person-1000'] }));
      expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_RETRY', message: expect.stringContaining('/ids') });
      expect(error.message).toContain('1000');
    }
  });

  it('AddDeviceToCustomerProfile adds and updates devices; RemoveCustomerDevice removes one', async () => {
    await identify('ada', {});
    const device = { id: 'apns-token-1', platform: 'ios', last_used: 1_748_000_000, attributes: { device_model: 'iPhone15,2', push_enabled: 'true' } };
    expect(await track.execute('AddDeviceToCustomerProfile', { unique_person_identifier: 'ada' }, { device })).toEqual(OK);
    await track.execute('AddDeviceToCustomerProfile', { unique_person_identifier: 'ada' }, { device: { id: 'fcm-token-2', platform: 'android' } });
    await track.execute('AddDeviceToCustomerProfile', { unique_person_identifier: 'ada' }, { device: { ...device, attributes: { push_enabled: 'false' } } });
    expect(workspace.person('ada')!.devices).toEqual([
      { device_id: 'apns-token-1', platform: 'ios', last_used: 1_748_000_000, attributes: { push_enabled: 'false' } },
      { device_id: 'fcm-token-2', platform: 'android', last_used: Math.floor(START / 1000), attributes: {} },
    ]);

    expect(await track.call('RemoveCustomerDevice', { customer_identifier: trkIdOf('ada'), device_unique_id: 'apns-token-1' })).toEqual(OK);
    expect(lastRequest().path).toMatch(/^\/api\/v1\/customers\/cio_[0-9a-f]+\/devices\/apns-token-1$/);
    expect(workspace.person('ada')!.devices.map((d) => d.device_id)).toEqual(['fcm-token-2']);

    // A device belongs to one person: adding it to someone else moves it.
    await track.execute('AddDeviceToCustomerProfile', { unique_person_identifier: 'grace' }, { device: { id: 'fcm-token-2', platform: 'android' } });
    expect(workspace.person('ada')!.devices).toEqual([]);
    expect(workspace.person('grace')!.devices.map((d) => d.device_id)).toEqual(['fcm-token-2']);
  });

  it('GlobalUnsubscribeUser sets unsubscribed, attributed to the delivery, only when asked to', async () => {
    workspace.createCampaign('Welcome', 'signed_up');
    await identify('ada', { email: 'ada@example.com' });
    await track.execute('SendCustomerEvent', { customer_identifier: 'ada' }, { name: 'signed_up' });
    const [delivery] = workspace.person('ada')!.deliveries;

    await track.call('GlobalUnsubscribeUser', { delivery_id_for_unsubscription: delivery!.delivery_id });
    expect(workspace.person('ada')!.attributes.unsubscribed).toBeUndefined();

    expect(await track.call('GlobalUnsubscribeUser', { delivery_id_for_unsubscription: delivery!.delivery_id, set_unsubscribed_attribute: true })).toEqual(OK);
    expect(lastRequest().body).toEqual({ unsubscribe: true });
    expect(workspace.person('ada')!.attributes.unsubscribed).toBe(true);
    expect(workspace.delivery(delivery!.delivery_id)!.unsubscribed_at).toBe(Math.floor(START / 1000));
    expect(workspace.activities()).toContainEqual(
      expect.objectContaining({
        type: 'unsubscribed',
        person: workspace.person('ada')!.cio_id,
        detail: expect.objectContaining({ delivery_id: delivery!.delivery_id }),
      }),
    );

    expect(await track.fail('GlobalUnsubscribeUser', { delivery_id_for_unsubscription: 'no-such-delivery', set_unsubscribed_attribute: true })).toMatchObject({
      kind: 'UPSTREAM_RUNTIME_NOT_FOUND',
    });
  });
});

describe('events, metrics and forms', () => {
  it('SendCustomerEvent logs custom, page and screen events once per id, and starts event-triggered campaigns', async () => {
    const welcome = workspace.createCampaign('Welcome', 'signed_up');
    const eventId = '01HZX5V8Q6R3N0M4K2J1H9G7F5';
    await track.execute(
      'SendCustomerEvent',
      { customer_identifier: 'ada@example.com' },
      { name: 'signed_up', id: eventId, data: { plan: 'pro', recipient: 'ada@example.com' } },
    );
    await track.execute('SendCustomerEvent', { customer_identifier: 'ada@example.com' }, { name: 'signed_up', id: eventId, data: { plan: 'pro' } });
    await track.execute('SendCustomerEvent', { customer_identifier: 'ada@example.com' }, { name: 'https://example.com/pricing', type: 'page' });
    await track.execute('SendCustomerEvent', { customer_identifier: 'ada@example.com' }, { name: 'Settings', type: 'screen', anonymous_id: 'device-7' });

    const ada = workspace.person('ada@example.com')!;
    expect(ada.events.map((event) => [event.name, event.type])).toEqual([
      ['signed_up', 'event'],
      ['https://example.com/pricing', 'page'],
      ['Settings', 'screen'],
    ]);
    expect(ada.events[0]).toMatchObject({ event_id: eventId, data: { plan: 'pro', recipient: 'ada@example.com' }, merged: false });
    expect(ada.journeys.map((journey) => journey.campaign_id)).toEqual([welcome]);
    expect(ada.deliveries).toHaveLength(1);
  });

  it("TrackAnonymousEvent keeps a visitor's events until a person is identified with the same anonymous_id", async () => {
    const welcome = workspace.createCampaign('Trial', 'started_trial');
    await track.execute('TrackAnonymousEvent', {}, { anonymous_id: 'visitor-1', name: 'started_trial', data: { source: 'ad' } });
    await track.execute('TrackAnonymousEvent', {}, { anonymous_id: 'visitor-1', name: '/pricing', type: 'page' });
    expect(workspace.anonymousEvents('visitor-1').map((event) => event.name)).toEqual(['started_trial', '/pricing']);

    await identify('ada', { anonymous_id: 'visitor-1' });
    expect(workspace.anonymousEvents('visitor-1')).toEqual([]);
    const ada = workspace.person('ada')!;
    expect(ada.events.map((event) => event.name)).toEqual(['started_trial', '/pricing']);
    // Attached, the visitor's events can trigger campaigns.
    expect(ada.journeys.map((journey) => journey.campaign_id)).toEqual([welcome]);

    // From now on the visitor's events go straight to the person.
    await track.execute('TrackAnonymousEvent', {}, { anonymous_id: 'visitor-1', name: 'Checkout', type: 'screen' });
    expect(workspace.person('ada')!.events.map((event) => event.name)).toEqual(['started_trial', '/pricing', 'Checkout']);
  });

  it('ReportCustomMetrics records a metric for a delivery', async () => {
    await identify('ada', {});
    const deliveryId = workspace.sendMessage('ada');
    const metric = { delivery_id: deliveryId, metric: 'clicked', href: 'https://example.com/offer', timestamp: 1_748_700_000 };
    expect(await track.execute('ReportCustomMetrics', {}, metric)).toEqual(OK);
    expect(workspace.delivery(deliveryId)!.metrics).toEqual([
      { metric: 'clicked', recipient: null, reason: null, href: 'https://example.com/offer', device_token: null, at: 1_748_700_000 },
    ]);

    expect(await track.failExecute('ReportCustomMetrics', {}, { delivery_id: 'unknown', metric: 'opened' })).toMatchObject({
      kind: 'UPSTREAM_RUNTIME_NOT_FOUND',
    });
  });

  it('SubmitFormResponse creates a form connection and identifies the respondent with the fields as attributes', async () => {
    const value = await track.execute(
      'SubmitFormResponse',
      { form_identifier: 'newsletter-footer' },
      { data: { email: 'ada@example.com', first_name: 'Ada', topic: 'engines' } },
    );
    expect(value).toEqual({ success: true, status: 204 });
    expect(workspace.forms()).toEqual(['newsletter-footer']);
    expect(workspace.person('ada@example.com')).toMatchObject({ email: 'ada@example.com', attributes: { first_name: 'Ada', topic: 'engines' } });
    expect(workspace.submissions('newsletter-footer')).toHaveLength(1);

    const error = await track.failExecute('SubmitFormResponse', { form_identifier: 'newsletter-footer' }, { data: { email: null, first_name: 'Anonymous' } });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_BAD_REQUEST', message: expect.stringContaining('id or email') });
  });
});

describe('v2 entities and batches', () => {
  it('ManageEntity runs person, object and delivery operations, with trk_id identifiers sent as cio_id', async () => {
    await identify('ada', { email: 'ada@example.com' });
    const trkId = trkIdOf('ada');
    await track.execute(
      'ManageEntity',
      {},
      { type: 'person', identifiers: { trk_id: trkId }, action: 'identify', attributes: { plan: 'team', email: 'ada@lovelace.example' } },
    );
    expect(lastRequest().body).toMatchObject({ identifiers: { cio_id: trkId.slice(4) } });
    expect(workspace.person('ada')).toMatchObject({ email: 'ada@lovelace.example', attributes: { plan: 'team' } });

    await track.execute(
      'ManageEntity',
      {},
      {
        type: 'object',
        identifiers: { object_type_id: '1', object_id: 'acme' },
        action: 'identify',
        attributes: { name: 'Acme' },
        cio_relationships: [{ identifiers: { trk_id: trkId }, relationship_attributes: { role: 'admin' } }],
      },
    );
    expect(workspace.objects()).toMatchObject([{ object_type_id: '1', object_id: 'acme', attributes: { name: 'Acme' } }]);
    expect(workspace.person('ada')!.relationships).toEqual([{ object_type_id: '1', object_id: 'acme', attributes: { role: 'admin' } }]);

    await track.execute('ManageEntity', {}, { type: 'person', identifiers: { id: 'ada' }, action: 'event', name: 'upgraded', attributes: { seats: 5 } });
    expect(workspace.person('ada')!.events.map((event) => [event.name, event.data])).toEqual([['upgraded', { seats: 5 }]]);

    const deliveryId = workspace.sendMessage('ada');
    await track.execute(
      'ManageEntity',
      {},
      { type: 'delivery', action: 'event', identifiers: { id: deliveryId }, name: 'opened', attributes: { device_token: 'apns-1' } },
    );
    expect(workspace.delivery(deliveryId)!.metrics).toMatchObject([{ metric: 'opened', device_token: 'apns-1' }]);

    await track.execute('ManageEntity', {}, { type: 'object', identifiers: { object_type_id: '1', object_id: 'acme' }, action: 'delete' });
    expect(workspace.objects()).toEqual([]);
    expect(workspace.person('ada')!.relationships).toEqual([]);
  });

  it('BatchProcessRequests applies operations in order, and a failing one changes nothing', async () => {
    const batch = [
      { type: 'person', identifiers: { id: 'ada' }, action: 'identify', attributes: { email: 'ada@example.com', plan: 'pro' } },
      { type: 'person', identifiers: { email: 'ada@example.com' }, action: 'add_device', device: { token: 'fcm-1', platform: 'android' } },
      { type: 'person', identifiers: { id: 'grace' }, action: 'identify', attributes: { plan: 'free' } },
      { type: 'person', identifiers: { id: 'grace' }, action: 'screen', name: 'Home' },
      { type: 'person', action: 'merge', primary: { id: 'ada' }, secondary: { id: 'grace' } },
    ];
    expect(await track.execute('BatchProcessRequests', {}, { batch })).toEqual(OK);
    expect(workspace.people().map((person) => person.id)).toEqual(['ada']);
    const ada = workspace.person('ada')!;
    expect(ada.devices.map((device) => device.device_id)).toEqual(['fcm-1']);
    expect(ada.events.map((event) => [event.name, event.type, event.merged])).toEqual([['Home', 'screen', true]]);

    const failing = [
      { type: 'person', identifiers: { id: 'linus' }, action: 'identify', attributes: {} },
      { type: 'person', action: 'merge', primary: { trk_id: 'trk_000000000000' }, secondary: { id: 'linus' } },
    ];
    const error = await track.failExecute('BatchProcessRequests', {}, { batch: failing });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND', message: expect.stringContaining('batch[1]') });
    expect(lastRequest().body).toMatchObject({ batch: [{}, { primary: { cio_id: '000000000000' } }] });
    expect(workspace.person('linus')).toBeUndefined();
  });

  it('BatchProcessRequests refuses an operation over 32 KB', async () => {
    const big = { type: 'person', identifiers: { id: 'ada' }, action: 'identify', attributes: { notes: 'x'.repeat(33 * 1024) } };
    const error = await track.failExecute('BatchProcessRequests', {}, { batch: [big] });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_BAD_REQUEST', message: expect.stringContaining('32768') });
    expect(workspace.people()).toEqual([]);
  });
});

describe('bad input is refused before anything is sent', () => {
  const modeDriven = catalog.tools.filter((tool) => tool.requestBody).map((tool) => tool.name);

  it('get_request_schema answers the body schema, written with trk_id, and sends nothing', async () => {
    for (const tool of modeDriven) {
      const value = await expectNothingSent(() => track.call(tool, { mode: 'get_request_schema' }));
      expect(value.request_body_schema).toEqual(catalog.tools.find((entry) => entry.name === tool)!.requestBody!.schema);
    }
    const merge = JSON.stringify((await track.call('MergeCustomerProfiles', { mode: 'get_request_schema' })).request_body_schema);
    expect(merge).toContain('trk_id');
    expect(merge).not.toContain('cio_id');
  });

  const cases: Array<[tool: string, input: Record<string, unknown>, expected: string]> = [
    ['DeleteCustomer', {}, "parameter 'customer_identifier' is required"],
    ['RemoveCustomerDevice', { customer_identifier: 'ada' }, "parameter 'device_unique_id' is required"],
    ['DeleteCustomer', { customer_identifier: 42 }, "parameter 'customer_identifier' must be a string"],
    [
      'GlobalUnsubscribeUser',
      { delivery_id_for_unsubscription: 'd', set_unsubscribed_attribute: 'yes' },
      "parameter 'set_unsubscribed_attribute' must be a boolean",
    ],
    [
      'AddPeopleToSegment',
      { mode: 'execute', segment_identifier: 'seven', request_body: '{"ids":["a"]}' },
      "parameter 'segment_identifier' must be an integer",
    ],
    ['UpdateOrAddPerson', { mode: 'run', person_identifier: 'ada' }, "parameter 'mode' must be one of"],
    ['GetTrackApiRegion', { region: 'eu' }, "parameter 'region' is not a known field"],
    ['SuppressCustomerProfile', { unique_person_identifier: 'trk_' }, "parameter 'unique_person_identifier' must be trk_ followed by the trk_id value"],
    [
      'AddPeopleToSegment',
      { mode: 'execute', segment_identifier: 1, identifier_type: 'phone', request_body: '{"ids":["a"]}' },
      "parameter 'identifier_type' must be one of: id, email, trk_id",
    ],
    [
      'RemoveUserFromSegment',
      { mode: 'execute', segment_identifier: 1, identification_type: 'cio_id', request_body: '{"ids":["a"]}' },
      "parameter 'identification_type' must be one of: id, email, trk_id",
    ],
  ];
  it.each(cases)('%s %j', async (tool, input, expected) => {
    const error = await expectNothingSent(() => track.fail(tool, input));
    expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    expect(error.message).toContain(expected);
  });

  it('refuses invalid JSON in every mode-driven tool', async () => {
    const placed = { unique_person_identifier: 'ada', segment_identifier: 1, customer_identifier: 'ada', form_identifier: 'f', person_identifier: 'ada' };
    for (const tool of modeDriven) {
      const names = catalog.tools.find((entry) => entry.name === tool)!.parameters.map((parameter) => parameter.name);
      const params = Object.fromEntries(Object.entries(placed).filter(([name]) => names.includes(name)));
      const error = await expectNothingSent(() => track.fail(tool, { mode: 'execute', ...params, request_body: '{"name": ' }));
      expect(error, tool).toMatchObject({ kind: 'TOOL_RUNTIME_RETRY', message: expect.stringContaining('not valid JSON') });
    }
  });

  const bodyCases: Array<[tool: string, input: Record<string, unknown>, expected: string]> = [
    ['SendCustomerEvent', { mode: 'execute', request_body: '{"name":"x"}' }, 'Missing customer_identifier'],
    ['UpdateOrAddPerson', { mode: 'execute', person_identifier: 'ada' }, 'request_body is required'],
    ['TrackAnonymousEvent', { mode: 'execute', request_body: '{"name": "x",' }, 'not valid JSON'],
    ['MergeCustomerProfiles', { mode: 'execute', request_body: '{"primary":{"id":"a"}}' }, '/secondary'],
    ['MergeCustomerProfiles', { mode: 'execute', request_body: '{"primary":{"id":"a"},"secondary":{"trk_id":"abc"}}' }, '/secondary'],
    [
      'AddDeviceToCustomerProfile',
      { mode: 'execute', unique_person_identifier: 'ada', request_body: '{"device":{"id":"t","platform":"windows"}}' },
      '/device/platform',
    ],
    [
      'SendCustomerEvent',
      { mode: 'execute', customer_identifier: 'ada', request_body: '{"name":"x","id":"not-a-ulid"}' },
      'request_body does not match the schema',
    ],
    [
      'AddPeopleToSegment',
      { mode: 'execute', segment_identifier: 1, identifier_type: 'trk_id', request_body: '{"ids":["trk_ab","ab"]}' },
      '/ids/1 must be written trk_<value>',
    ],
    [
      'ManageEntity',
      { mode: 'execute', request_body: '{"type":"person","identifiers":{"id":"a"},"action":"explode"}' },
      'request_body does not match the schema',
    ],
    [
      'BatchProcessRequests',
      { mode: 'execute', request_body: '{"batch":[{"type":"person","identifiers":{"cio_id":"x"},"action":"delete"}]}' },
      'request_body does not match the schema',
    ],
    ['ReportCustomMetrics', { mode: 'execute', request_body: '{"delivery_id":"d","metric":"liked"}' }, 'request_body does not match the schema'],
    ['SubmitFormResponse', { mode: 'execute', form_identifier: 'f', request_body: '{"data":{"first_name":"Ada"}}' }, 'request_body does not match the schema'],
    ['RemoveUserFromSegment', { mode: 'execute', segment_identifier: 1, request_body: '{"ids":[]}' }, '/ids'],
  ];
  it.each(bodyCases)('%s body %j', async (tool, input, expected) => {
    const error = await expectNothingSent(() => track.fail(tool, input));
    expect(error.kind).toBe('TOOL_RUNTIME_RETRY');
    expect(error.message).toContain(expected);
  });
});

describe('coverage', () => {
  it('called every catalog tool successfully', () => {
    expect(catalog.tools).toHaveLength(17);
    expect([...covered].sort()).toEqual(catalog.tools.map((tool) => tool.name).sort());
  });
});
