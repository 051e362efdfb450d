import { describe, expect, it } from 'vitest';
import { useEmulator } from './hubspot.helpers.js';

const hub = useEmulator();

const tokens = '/marketing/v3/transactional/smtp-tokens';

async function createToken(campaignName: string, createContact = false) {
  const reply = await hub.call('POST', tokens, { body: { campaignName, createContact } });
  expect(reply.status).toBe(201);
  return reply.body;
}

describe('SMTP API tokens', () => {
  it('shows the password once, at creation', async () => {
    const token = await createToken('Receipts', true);
    expect(token).toMatchObject({ campaignName: 'Receipts', createContact: true, createdBy: '1000001', emailCampaignId: expect.stringMatching(/^\d+$/) });
    expect(token.password).toEqual(expect.any(String));
    expect(hub.emulator.checkSmtpPassword(token.id, token.password)).toBe(true);

    const read = await hub.call('GET', `${tokens}/${token.id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('password');
    const { password: _, ...withoutPassword } = token;
    expect(read.body).toEqual(withoutPassword);
    expect((await hub.call('GET', `${tokens}/no-such-token`)).status).toBe(404);
  });

  it('resets the password: the new one works, the old one stops working', async () => {
    const token = await createToken('Receipts');
    const reset = await hub.call('POST', `${tokens}/${token.id}/password-reset`);
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ id: token.id, emailCampaignId: token.emailCampaignId });
    expect(reset.body.password).not.toBe(token.password);
    expect(hub.emulator.checkSmtpPassword(token.id, token.password)).toBe(false);
    expect(hub.emulator.checkSmtpPassword(token.id, reset.body.password)).toBe(true);
    expect((await hub.call('POST', `${tokens}/missing/password-reset`)).status).toBe(404);
  });

  it('queries by campaign name or email campaign id, with limit and after', async () => {
    const first = await createToken('Receipts');
    const second = await createToken('Receipts');
    const other = await createToken('Alerts');

    const page1 = await hub.call('GET', tokens, { query: { campaignName: 'Receipts', limit: 1 } });
    expect(page1.body.results.map((t: any) => t.id)).toEqual([first.id]);
    expect(page1.body.results[0]).not.toHaveProperty('password');
    const page2 = await hub.call('GET', tokens, { query: { campaignName: 'Receipts', limit: 1, after: page1.body.paging.next.after } });
    expect(page2.body.results.map((t: any) => t.id)).toEqual([second.id]);
    expect(page2.body.paging).toBeUndefined();

    const byCampaignId = await hub.call('GET', tokens, { query: { emailCampaignId: other.emailCampaignId } });
    expect(byCampaignId.body.results.map((t: any) => t.id)).toEqual([other.id]);
    expect((await hub.call('GET', tokens)).body.results).toHaveLength(3);
    expect((await hub.call('GET', tokens, { query: { limit: 0 } })).status).toBe(400);
  });

  it('deletes a token, after which its password no longer works', async () => {
    const token = await createToken('Receipts');
    expect((await hub.call('DELETE', `${tokens}/${token.id}`)).status).toBe(204);
    expect((await hub.call('GET', `${tokens}/${token.id}`)).status).toBe(404);
    expect(hub.emulator.checkSmtpPassword(token.id, token.password)).toBe(false);
    expect((await hub.call('DELETE', `${tokens}/${token.id}`)).status).toBe(404);
  });
});
