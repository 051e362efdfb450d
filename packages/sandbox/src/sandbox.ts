/** Every emulator at once, for `--sandbox`: base URLs by toolkit and a token each of them has issued. */
import { seedClickupDemo } from './clickup/demo.js';
import { startClickupEmulator } from './clickup/index.js';
import { demoSiteId, seedCustomerioDemo } from './customerio/demo.js';
import { startCustomerioEmulator } from './customerio/index.js';
import { seedDropboxDemo } from './dropbox/demo.js';
import { startDropboxEmulator } from './dropbox/index.js';
import { seedFigmaDemo, startFigmaEmulator } from './figma/index.js';
import { seedGithubDemo } from './github/demo.js';
import { startGithubEmulator } from './github/index.js';
import { seedGraphDemo, startGraphEmulator } from './graph/index.js';
import { seedHubspotDemo } from './hubspot/demo.js';
import { startHubspotEmulator } from './hubspot/index.js';
import { seedPylonDemo } from './pylon/demo.js';
import { startPylonEmulator } from './pylon/index.js';
import type { RateLimitSetting } from './emulator/rate-limit.js';

export interface Sandbox {
  baseUrls: Record<string, string>;
  /** The OAuth token every emulator has issued (they refuse any other). */
  token: string;
  /** Values for the secrets that secret-based toolkits declare, as the emulators expect them. */
  secrets: Record<string, string>;
  close(): Promise<void>;
}

export const sandboxToken = 'quiver-sandbox-token';

export interface SandboxOptions {
  /** Each credential's rate limit per toolkit's emulator, where it differs from the emulator's generous default. */
  limits?: Partial<Record<string, RateLimitSetting>>;
}

/** Starts every emulator, with a little demo data so that list and get tools have something to show. */
export async function startSandbox({ limits = {} }: SandboxOptions = {}): Promise<Sandbox> {
  const [hubspot, github, customerio, clickup, dropbox, pylon, figma, graph] = await Promise.all([
    startHubspotEmulator({ limit: limits.CrmMarketingApi }),
    startGithubEmulator({ limit: limits.RepoHostApi }),
    startCustomerioEmulator({ limit: limits.TrackingApi }),
    startClickupEmulator({ limit: limits.TaskboardApi }),
    startDropboxEmulator({ limit: limits.FileStore }),
    startPylonEmulator({ limit: limits.SupportDesk }),
    startFigmaEmulator({ limit: limits.Design }),
    startGraphEmulator({ limit: limits.MailClient }),
  ]);
  for (const emulator of [hubspot, clickup, dropbox, pylon, figma, graph]) emulator.issueToken(sandboxToken);
  await seedHubspotDemo(hubspot.url, sandboxToken);
  // On the code host the sandbox token is octocat, the owner of the demo repository.
  await seedGithubDemo(github.url, github.tokenFor('octocat', sandboxToken));
  // Tracking: the demo workspace has site id quiver-sandbox and the sandbox token as its API key.
  await seedCustomerioDemo(customerio, sandboxToken);
  // Task board: the sandbox token's user is a member of the demo workspace (space Product, list Roadmap).
  await seedClickupDemo(clickup, sandboxToken);
  seedDropboxDemo(dropbox, sandboxToken);
  // Support desk: the sandbox token belongs to a named service account in a seeded workspace.
  seedPylonDemo(pylon, sandboxToken);
  // Design: team 1001, project 2001 and the file DEMOFILE; mail: the sandbox token's mailbox is ada.lovelace@contoso.example.
  seedFigmaDemo(figma, sandboxToken);
  seedGraphDemo(graph, sandboxToken);
  return {
    baseUrls: {
      CrmMarketingApi: hubspot.url,
      RepoHostApi: github.url,
      TrackingApi: customerio.url,
      TaskboardApi: clickup.url,
      FileStore: dropbox.url,
      SupportDesk: pylon.url,
      Design: figma.url,
      MailClient: graph.url,
    },
    token: sandboxToken,
    secrets: { TRACKING_SITE_ID: demoSiteId, TRACKING_API_KEY: sandboxToken, SUPPORT_API_TOKEN: sandboxToken },
    close: async () => {
      await Promise.all([hubspot.close(), github.close(), customerio.close(), clickup.close(), dropbox.close(), pylon.close(), figma.close(), graph.close()]);
    },
  };
}
