import { afterAll, beforeAll, expect, it } from 'vitest';
import { sandboxToken, startSandbox, type Sandbox } from '../../src/sandbox.js';
import { demoSiteId, seedCustomerioDemo } from '../../src/customerio/demo.js';
import { startCustomerioEmulator, type CustomerioEmulator } from '../../src/customerio/emulator.js';
import { basic, basicClient } from './customerio.helpers.js';

let emulator: CustomerioEmulator;
let sandbox: Sandbox;
beforeAll(async () => {
  emulator = await startCustomerioEmulator();
  await seedCustomerioDemo(emulator, sandboxToken);
  sandbox = await startSandbox();
});
afterAll(async () => {
  await emulator.close();
  await sandbox.close();
});

it('seeds two people, a segment with Ada, and her welcome message', () => {
  const workspace = emulator.workspace({ siteId: demoSiteId, apiKey: sandboxToken });
  expect(workspace.people().map((person) => person.email)).toEqual(['ada.lovelace@example.com', 'grace.hopper@example.com']);
  const ada = workspace.person('ada')!;
  expect(ada.segments).toHaveLength(1);
  expect(ada.journeys).toHaveLength(1);
  expect(workspace.delivery(ada.deliveries[0]!.delivery_id)).toBeDefined();
});

it('serves TrackingApi in the sandbox, with the sandbox token as the demo workspace API key', async () => {
  const call = basicClient(sandbox.baseUrls.TrackingApi!, basic(demoSiteId, sandboxToken));
  expect((await call('GET', '/api/v1/accounts/region')).body).toMatchObject({ region: 'us' });
  // Ada exists: an update that may not create anyone still applies to her.
  expect((await call('PUT', '/api/v1/customers/ada', { body: { _update: true, plan: 'team' } })).status).toBe(200);
  const wrong = await basicClient(sandbox.baseUrls.TrackingApi!, basic(demoSiteId, 'another-key'))('GET', '/api/v1/accounts/region');
  expect(wrong.status).toBe(401);
});
