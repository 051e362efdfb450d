/**
 * The identify rules, relationships and merges, driven over HTTP: which identifiers an identify call
 * may set or change, what it records as an Attribute Update Failure, and what follows a person when
 * visitors are identified or people merged.
 */
import { describe, expect, it } from 'vitest';
import { CREDENTIALS, useEmulator } from './customerio.helpers.js';

const cio = useEmulator();
const put = (identifier: string, body: Record<string, unknown>) => cio.call('PUT', `/api/v1/customers/${encodeURIComponent(identifier)}`, { body });
const workspace = () => cio.emulator.workspace(CREDENTIALS);

describe('identify', () => {
  it('sets an id on a person found by email, but does not replace one', async () => {
    await put('ada@example.com', { id: 'ada' });
    expect(workspace().person('ada@example.com')!.id).toBe('ada');
    await put('ada@example.com', { id: 'someone-else' });
    expect(workspace().person('ada@example.com')!.id).toBe('ada');
    expect(
      workspace()
        .activities()
        .map((activity) => [activity.type, activity.detail.attribute, activity.detail.reason]),
    ).toEqual([['failed_attribute_change', 'id', 'id can only be changed by referencing the person by cio_id']]);
  });

  it('records a failure for the path identifier when the person the body names already has another', async () => {
    await put('grace', { email: 'grace@example.com' });
    await put('ada', { email: 'grace@example.com', plan: 'pro' });
    // The person found by email keeps their id; the other attributes still apply.
    expect(workspace().people()).toHaveLength(1);
    expect(workspace().person('grace')!.attributes).toEqual({ plan: 'pro' });
    expect(workspace().activities()[0]).toMatchObject({ type: 'failed_attribute_change', detail: { attribute: 'id', value: 'ada' } });
  });

  it('adds and removes relationships to objects', async () => {
    const account = { identifiers: { object_type_id: '1', object_id: 'acme' }, relationship_attributes: { role: 'owner' } };
    await put('ada', { cio_relationships: { action: 'add_relationships', relationships: [account] } });
    expect(workspace().person('ada')!.relationships).toEqual([{ object_type_id: '1', object_id: 'acme', attributes: { role: 'owner' } }]);
    await put('ada', { cio_relationships: { action: 'delete_relationships', relationships: [{ identifiers: account.identifiers }] } });
    expect(workspace().person('ada')!.relationships).toEqual([]);
    // The object itself stays.
    expect(
      workspace()
        .objects()
        .map((object) => object.object_id),
    ).toEqual(['acme']);
  });

  it("gives a visitor's object relationships to the person identified with the same anonymous_id", async () => {
    await cio.call('POST', '/api/v2/entity', {
      body: {
        type: 'object',
        identifiers: { object_type_id: '1', object_id: 'cart-9' },
        action: 'identify_anonymous',
        cio_relationships: [{ identifiers: { anonymous_id: 'visitor-3' } }],
      },
    });
    await put('ada', { anonymous_id: 'visitor-3' });
    expect(
      workspace()
        .person('ada')!
        .relationships.map((relationship) => relationship.object_id),
    ).toEqual(['cart-9']);
  });
});

describe('merge', () => {
  it('keeps the campaign journeys the primary already has and moves relationships and visitors', async () => {
    const welcome = workspace().createCampaign('Welcome', 'signed_up');
    const upsell = workspace().createCampaign('Upsell', 'viewed_pricing');
    await cio.call('POST', '/api/v1/customers/primary/events', { body: { name: 'signed_up' } });
    await put('secondary', {
      anonymous_id: 'visitor-5',
      cio_relationships: { action: 'add_relationships', relationships: [{ identifiers: { object_type_id: '1', object_id: 'acme' } }] },
    });
    await cio.call('POST', '/api/v1/customers/secondary/events', { body: { name: 'signed_up' } });
    await cio.call('POST', '/api/v1/customers/secondary/events', { body: { name: 'viewed_pricing' } });
    const primaryJourney = workspace().person('primary')!.journeys[0]!;

    expect((await cio.call('POST', '/api/v1/merge_customers', { body: { primary: { id: 'primary' }, secondary: { id: 'secondary' } } })).status).toBe(200);
    const primary = workspace().person('primary')!;
    expect(primary.journeys).toEqual([primaryJourney, expect.objectContaining({ campaign_id: upsell })]);
    expect(primary.journeys[0]!.campaign_id).toBe(welcome);
    expect(primary.relationships.map((relationship) => relationship.object_id)).toEqual(['acme']);

    // The secondary's visitor now belongs to the primary.
    await cio.call('POST', '/api/v1/events', { body: { anonymous_id: 'visitor-5', name: 'came_back' } });
    expect(
      workspace()
        .person('primary')!
        .events.map((event) => event.name),
    ).toContain('came_back');
  });

  it('refuses to merge a person into themself', async () => {
    await put('ada', { email: 'ada@example.com' });
    const reply = await cio.call('POST', '/api/v1/merge_customers', { body: { primary: { id: 'ada' }, secondary: { email: 'ada@example.com' } } });
    expect(reply).toMatchObject({ status: 400, body: { meta: { error: 'primary and secondary are the same person' } } });
  });
});
