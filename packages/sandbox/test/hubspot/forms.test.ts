import { describe, expect, it } from 'vitest';
import { HubspotError } from '../../src/hubspot/context.js';
import { formDefinition } from '../../src/hubspot/samples.js';
import { UUID, useEmulator } from './hubspot.helpers.js';

const JAN_15 = Date.UTC(2025, 0, 15);

const hub = useEmulator(JAN_15);

async function createForm(name: string) {
  const reply = await hub.call('POST', '/marketing/v3/forms/', { body: formDefinition(name) });
  expect(reply.status).toBe(201);
  return reply.body;
}

function refusal(submit: () => unknown): HubspotError {
  try {
    submit();
  } catch (error) {
    if (error instanceof HubspotError) return error;
    throw error;
  }
  throw new Error('the submission was accepted');
}

describe('forms', () => {
  it('creates a form with its own id and timestamps, and reads it back', async () => {
    const form = await createForm('Signup');
    expect(form.id).toMatch(UUID);
    expect(form).toMatchObject({ name: 'Signup', formType: 'hubspot', archived: false, createdAt: expect.stringMatching(/^2025-01-15T/) });
    expect(form).not.toHaveProperty('archivedAt');
    const read = await hub.call('GET', `/marketing/v3/forms/${form.id}`);
    expect(read.body).toEqual(form);
    expect((await hub.call('GET', '/marketing/v3/forms/no-such-form')).status).toBe(404);
  });

  it('lists forms with limit and after, filtered by formTypes', async () => {
    for (const name of ['One', 'Two', 'Three']) await createForm(name);
    const first = await hub.call('GET', '/marketing/v3/forms/', { query: { limit: 2 } });
    expect(first.body.results.map((f: any) => f.name)).toEqual(['One', 'Two']);
    const rest = await hub.call('GET', '/marketing/v3/forms/', { query: { limit: 2, after: first.body.paging.next.after } });
    expect(rest.body.results.map((f: any) => f.name)).toEqual(['Three']);
    expect(rest.body.paging).toBeUndefined();

    expect((await hub.call('GET', '/marketing/v3/forms/', { query: { formTypes: ['captured', 'flow'] } })).body.results).toEqual([]);
    expect((await hub.call('GET', '/marketing/v3/forms/', { query: { formTypes: ['flow', 'hubspot'] } })).body.results).toHaveLength(3);
    const bad = await hub.call('GET', '/marketing/v3/forms/', { query: { formTypes: 'quiz' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^formTypes must be among/);
  });

  it('replaces a form with PUT and merges with PATCH', async () => {
    const form = await createForm('Signup');
    const definition = formDefinition('Signup v2');
    definition.fieldGroups[0]!.fields.pop();
    const replaced = await hub.call('PUT', `/marketing/v3/forms/${form.id}`, { body: { ...definition, id: form.id } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.name).toBe('Signup v2');
    expect(replaced.body.fieldGroups[0].fields.map((f: any) => f.name)).toEqual(['email']);

    const mismatch = await hub.call('PUT', `/marketing/v3/forms/${form.id}`, { body: { ...definition, id: 'another-form' } });
    expect(mismatch.status).toBe(400);
    const incomplete = await hub.call('PUT', `/marketing/v3/forms/${form.id}`, { body: { id: form.id, name: 'Only a name' } });
    expect(incomplete.status).toBe(400);

    const patched = await hub.call('PATCH', `/marketing/v3/forms/${form.id}`, { body: { name: 'Signup v3' } });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe('Signup v3');
    expect(patched.body.fieldGroups[0].fields.map((f: any) => f.name)).toEqual(['email']);
    expect(patched.body.displayOptions.submitButtonText).toBe('Submit');
  });

  it('takes submissions on active forms only, with the fields the form has', async () => {
    const form = await createForm('Signup');
    expect(hub.emulator.submitForm(form.id, { email: 'someone.new@example.com', firstname: 'Some' })).toMatchObject({ contactVid: 1006 });
    expect(refusal(() => hub.emulator.submitForm(form.id, { email: 'a@example.com', phone: '1' })).message).toBe(`form ${form.id} has no field 'phone'`);
    expect(refusal(() => hub.emulator.submitForm(form.id, { firstname: 'No email' })).message).toBe("field 'email' is required");
    expect(refusal(() => hub.emulator.submitForm('no-such-form', { email: 'a@example.com' })).status).toBe(404);
  });

  it('archives a form: hidden unless asked for, refusing submissions, deleted three calendar months later', async () => {
    const form = await createForm('Signup');
    const kept = await createForm('Kept');
    const archived = await hub.call('DELETE', `/marketing/v3/forms/${form.id}`);
    expect(archived.status).toBe(204);

    expect((await hub.call('GET', `/marketing/v3/forms/${form.id}`)).status).toBe(404);
    const asked = await hub.call('GET', `/marketing/v3/forms/${form.id}`, { query: { archived: true } });
    expect(asked.body).toMatchObject({ archived: true, archivedAt: expect.stringMatching(/^2025-01-15T/) });
    expect((await hub.call('GET', '/marketing/v3/forms/')).body.results.map((f: any) => f.id)).toEqual([kept.id]);
    expect((await hub.call('GET', '/marketing/v3/forms/', { query: { archived: true } })).body.results.map((f: any) => f.id)).toEqual([form.id]);

    const refused = refusal(() => hub.emulator.submitForm(form.id, { email: 'ada.lovelace@example.com' }));
    expect(refused.status).toBe(400);
    expect(refused.message).toBe(`form ${form.id} is archived and accepts no submissions`);

    // Archived on 15 January: still kept on 14 April, gone on 15 April.
    hub.emulator.clock.set(Date.UTC(2025, 3, 14, 23));
    expect((await hub.call('GET', `/marketing/v3/forms/${form.id}`, { query: { archived: true } })).status).toBe(200);
    hub.emulator.clock.set(Date.UTC(2025, 3, 15, 1));
    expect((await hub.call('GET', `/marketing/v3/forms/${form.id}`, { query: { archived: true } })).status).toBe(404);
    expect((await hub.call('GET', '/marketing/v3/forms/', { query: { archived: true } })).body.results).toEqual([]);
    expect((await hub.call('DELETE', `/marketing/v3/forms/${form.id}`)).status).toBe(404);
    expect(refusal(() => hub.emulator.submitForm(form.id, { email: 'ada.lovelace@example.com' })).status).toBe(404);
    expect((await hub.call('GET', `/marketing/v3/forms/${kept.id}`)).status).toBe(200);
  });

  it('restores an archived form before its deletion with PATCH archived=false', async () => {
    const form = await createForm('Signup');
    await hub.call('DELETE', `/marketing/v3/forms/${form.id}`);
    const restored = await hub.call('PATCH', `/marketing/v3/forms/${form.id}`, { body: { archived: false } });
    expect(restored.body.archived).toBe(false);
    hub.emulator.clock.set(Date.UTC(2025, 6, 1));
    expect((await hub.call('GET', `/marketing/v3/forms/${form.id}`)).status).toBe(200);
    expect(hub.emulator.submitForm(form.id, { email: 'ada.lovelace@example.com' })).toMatchObject({ contactVid: 1001 });
  });
});
