/**
 * A little marketing data for a new sandbox user to look at and change: one campaign with a budget
 * item, one published email, one form and one upcoming webinar. Created through the emulator's own
 * HTTP API, so it passes the same checks as any tool's request.
 */
import { formDefinition } from './samples.js';

export const demoEvent = { externalAccountId: 'demo-account', externalEventId: 'spring-webinar' };

export async function seedHubspotDemo(baseUrl: string, token: string): Promise<void> {
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`sandbox demo data: ${method} ${path} answered ${response.status}: ${await response.text()}`);
    return response.status === 204 ? undefined : ((await response.json()) as { id: string });
  };

  const campaign = await send('POST', '/marketing/v3/campaigns/', {
    properties: { hs_name: 'Spring launch', hs_start_date: '2026-03-01', hs_end_date: '2026-05-31', hs_currency_code: 'EUR' },
  });
  await send('POST', `/marketing/v3/campaigns/${campaign!.id}/budget`, { name: 'Paid social', amount: 5000, order: 1 });
  const email = await send('POST', '/marketing/v3/emails/', { name: 'Spring launch announcement', subject: 'Something new this spring', language: 'en' });
  await send('POST', `/marketing/v3/emails/${email!.id}/publish`);
  await send('POST', '/marketing/v3/forms/', formDefinition('Spring webinar sign-up'));
  await send('POST', '/marketing/v3/marketing-events/events', {
    ...demoEvent,
    eventName: 'Spring product webinar',
    eventOrganizer: 'Marketing team',
    eventType: 'WEBINAR',
    startDateTime: '2026-04-15T16:00:00Z',
    endDateTime: '2026-04-15T17:00:00Z',
  });
}
