/**
 * A little tracking data for a new sandbox user: in the workspace whose site id is `quiver-sandbox`
 * (the API key being the sandbox token), two people, a manual segment with one of them, a data-driven
 * segment, and a welcome campaign that Ada's sign-up event started, so her message's delivery id can
 * be unsubscribed from or reported on. People are added through the emulator's own HTTP API.
 */
import type { CustomerioEmulator } from './emulator.js';

export const demoSiteId = 'quiver-sandbox';

export async function seedCustomerioDemo(emulator: CustomerioEmulator, apiKey: string): Promise<void> {
  const workspace = emulator.workspace({ siteId: demoSiteId, apiKey });
  const authorization = `Basic ${Buffer.from(`${demoSiteId}:${apiKey}`).toString('base64')}`;
  const send = async (method: string, path: string, body: unknown) => {
    const response = await fetch(emulator.url + path, { method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`sandbox demo data: ${method} ${path} answered ${response.status}: ${await response.text()}`);
  };

  const readers = workspace.createSegment('Newsletter readers');
  workspace.createSegment('Active this month', 'data');
  workspace.createCampaign('Welcome series', 'signed_up');
  await send('PUT', '/api/v1/customers/ada', { email: 'ada.lovelace@example.com', first_name: 'Ada', plan: 'pro', created_at: 1_735_689_600 });
  await send('PUT', '/api/v1/customers/grace', { email: 'grace.hopper@example.com', first_name: 'Grace', plan: 'free', created_at: 1_738_368_000 });
  await send('POST', `/api/v1/segments/${readers}/add_customers`, { ids: ['ada'] });
  await send('POST', '/api/v1/customers/ada/events', { name: 'signed_up', data: { source: 'sandbox' } });
}
