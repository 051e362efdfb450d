/**
 * Upstream-aware throttling, toolkit by toolkit, each against its emulator's own rate-limit dialect: the
 * emulator's limit is made small, calls spend it, and the next call fails at once with
 * UPSTREAM_RUNTIME_RATE_LIMIT and the wait the upstream's answers told, without reaching the emulator;
 * once the emulator's clock (which the client's budgets read too) is past the window, calls go again.
 *
 * Services whose every answer tells the budget (GitHub, ClickUp, HubSpot) are never sent the request over
 * it; services that say nothing until they refuse (Dropbox, Figma, Graph, Pylon, Customer.io) are sent it
 * once, and their refusal keeps every later call home. The clock stands still, so every wait is exact.
 */
import { UpstreamBudgets, UpstreamClient, type Toolkit, type ToolError } from '@quiver/core';
import {
  startClickupEmulator,
  startCustomerioEmulator,
  startDropboxEmulator,
  startFigmaEmulator,
  startGithubEmulator,
  startGraphEmulator,
  startHubspotEmulator,
  startPylonEmulator,
  stillClock,
  type Clock,
  type Emulator,
} from '@quiver/sandbox';
import { crmMarketing, design, fileStore, mailClient, repoHost, supportDesk, taskboard, trackingApi } from '@quiver/toolkits';
import { describe, expect, it } from 'vitest';
import { ToolClient } from './tool-client.helpers.js';

const TOKEN = 'budget-test-token';

/** What the emulator received while `work` ran (read afresh: a multi-host emulator's log is a new array each time). */
async function sentDuring<T>(emulator: Emulator, work: () => Promise<T>): Promise<{ result: T; sent: unknown[] }> {
  const before = emulator.requests.length;
  const result = await work();
  return { result, sent: emulator.requests.slice(before) };
}

interface Case {
  toolkit: Toolkit;
  /** The service's window, as the emulator keeps it. */
  windowMs: number;
  /** Whether every answer tells the budget (so the request over it is never sent). */
  told: boolean;
  /** The wait the client tells for a window that started at `start`, as the service's headers say it. */
  wait(start: number, windowMs: number): number;
  /** Starts the emulator and sets up what the call needs; the call to repeat. */
  prepare(clock: Clock): Promise<{ emulator: Emulator; token?: string; secrets?: Record<string, string>; tool: string; input: () => Record<string, unknown> }>;
}

/** x-ratelimit-reset is in whole seconds, rounded up by the emulators. */
const epochSeconds = (start: number, windowMs: number) => Math.ceil((start + windowMs) / 1000) * 1000 - start;
const exactly = (_start: number, windowMs: number) => windowMs;

const cases: Record<string, Case> = {
  'CrmMarketingApi (HubSpot: X-HubSpot-RateLimit-* over a rolling 10 s)': {
    toolkit: crmMarketing,
    windowMs: 10_000,
    told: true,
    wait: exactly,
    async prepare(clock) {
      const emulator = await startHubspotEmulator({ clock });
      return { emulator, token: emulator.issueToken(TOKEN), tool: 'GetMarketingCampaigns', input: () => ({}) };
    },
  },
  'RepoHostApi (GitHub: x-ratelimit-* an hour, 403 over it)': {
    toolkit: repoHost,
    windowMs: 3_600_000,
    told: true,
    wait: epochSeconds,
    async prepare(clock) {
      const emulator = await startGithubEmulator({ clock });
      return { emulator, token: emulator.tokenFor('octocat', TOKEN), tool: 'FetchOpenRepoInvitations', input: () => ({}) };
    },
  },
  'TaskboardApi (ClickUp: X-RateLimit-* a minute)': {
    toolkit: taskboard,
    windowMs: 60_000,
    told: true,
    wait: epochSeconds,
    async prepare(clock) {
      const emulator = await startClickupEmulator({ clock });
      emulator.issueToken(TOKEN);
      const space = emulator.createSpace(emulator.createWorkspace('Budget', [emulator.userFor(TOKEN)]), 'Work');
      const setup = new ToolClient(taskboard, { upstream: emulator, token: TOKEN });
      const list = await setup.execute('CreateTaskboardList', { space_identifier: space }, { name: 'Roadmap' });
      await setup.close();
      return { emulator, token: TOKEN, tool: 'GetTasksInList', input: () => ({ list_identifier: list.id }) };
    },
  },
  'FileStore (Dropbox: 429 with Retry-After)': {
    toolkit: fileStore,
    windowMs: 60_000,
    told: false,
    wait: exactly,
    async prepare(clock) {
      const emulator = await startDropboxEmulator({ clock });
      return { emulator, token: emulator.issueToken(TOKEN), tool: 'ListItemsInFolder', input: () => ({}) };
    },
  },
  'Design (Figma: 429 with Retry-After)': {
    toolkit: design,
    windowMs: 60_000,
    told: false,
    wait: exactly,
    async prepare(clock) {
      const emulator = await startFigmaEmulator({ clock });
      return { emulator, token: emulator.issueToken(TOKEN), tool: 'WhoAmI', input: () => ({}) };
    },
  },
  'MailClient (Microsoft Graph: 429 with Retry-After, 10 minutes)': {
    toolkit: mailClient,
    windowMs: 600_000,
    told: false,
    wait: exactly,
    async prepare(clock) {
      const emulator = await startGraphEmulator({ clock });
      emulator.addMailbox(TOKEN, { displayName: 'Ada Lovelace', mail: 'ada@contoso.example' });
      return { emulator, token: TOKEN, tool: 'ListEmails', input: () => ({}) };
    },
  },
  'SupportDesk (Pylon: 429 with Retry-After)': {
    toolkit: supportDesk,
    windowMs: 60_000,
    told: false,
    wait: exactly,
    async prepare(clock) {
      const emulator = await startPylonEmulator({ clock });
      emulator.issueToken(TOKEN);
      return { emulator, secrets: { SUPPORT_API_TOKEN: TOKEN }, tool: 'WhoAmI', input: () => ({}) };
    },
  },
  'TrackingApi (Customer.io Track: a bare 429, a second)': {
    toolkit: trackingApi,
    windowMs: 1_000,
    told: false,
    // Customer.io says nothing of when: the client assumes a second.
    wait: () => 1_000,
    async prepare(clock) {
      const emulator = await startCustomerioEmulator({ clock });
      emulator.workspace({ siteId: 'budget-site', apiKey: TOKEN });
      return { emulator, secrets: { TRACKING_SITE_ID: 'budget-site', TRACKING_API_KEY: TOKEN }, tool: 'GetTrackApiRegion', input: () => ({}) };
    },
  },
};

describe.each(Object.entries(cases))('%s', (_name, { toolkit, windowMs, told, wait, prepare }) => {
  it('fails fast once the upstream’s budget is spent, with nothing sent and the wait it told, and calls again after the window', async () => {
    const clock = stillClock();
    const { emulator, token, secrets, tool, input } = await prepare(clock);
    const client = new UpstreamClient({ maxRetries: 0, budgets: new UpstreamBudgets({ now: () => clock.now() }) });
    const kit = new ToolClient(toolkit, { upstream: emulator, token, secrets, client, verbose: true });
    try {
      // A small budget, and a window of the service's length that starts with the next request.
      emulator.setRateLimit({ requests: 2, windowMs });
      clock.advance(windowMs + 1_000);
      const start = clock.now();
      for (let i = 0; i < 2; i++) expect(await kit.call(tool, input())).toBeDefined();

      let refusal: ToolError;
      if (told) {
        const { result, sent } = await sentDuring(emulator, () => kit.fail(tool, input()));
        expect(sent, 'requests over the budget the emulator received').toEqual([]);
        refusal = result;
      } else {
        // Nothing was said until the upstream refused: that one request goes, and is refused.
        const { result: refused, sent } = await sentDuring(emulator, () => kit.fail(tool, input()));
        expect(sent).toHaveLength(1);
        expect(refused).toMatchObject({ kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', status_code: 429, can_retry: true, retry_after_ms: wait(start, windowMs) });
        const { result, sent: none } = await sentDuring(emulator, () => kit.fail(tool, input()));
        expect(none).toEqual([]);
        refusal = result;
      }
      expect(refusal).toMatchObject({ kind: 'UPSTREAM_RUNTIME_RATE_LIMIT', can_retry: true, retry_after_ms: wait(start, windowMs) });
      expect(refusal.status_code).toBeUndefined();
      expect(refusal.message).toContain(new URL(emulator.url).host);
      expect(refusal.message).toContain('so this call was not sent');

      // Past the window, by the emulator's clock and so by the budgets': calls reach the upstream again.
      clock.advance(wait(start, windowMs));
      const { result, sent } = await sentDuring(emulator, () => kit.call(tool, input()));
      expect(result).toBeDefined();
      expect(sent).toHaveLength(1);
    } finally {
      await kit.close();
      await emulator.close();
    }
  });
});
