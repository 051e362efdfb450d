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
  /**
   * The emulators' loopback ports: `SANDBOX_PORTS` consecutive ones from this one, in the order of `emulatorPorts`.
   * Default: ports the system picks. A port in use fails the start (EADDRINUSE, naming it), every emulator closed.
   */
  firstPort?: number;
}

/** How many ports each emulator takes, in the order they are placed from `firstPort` (Customer.io serves its US and EU hosts). */
const emulatorPorts = { hubspot: 1, github: 1, customerio: 2, clickup: 1, dropbox: 1, pylon: 1, figma: 1, graph: 1 } as const;

/** How many consecutive ports the sandbox takes from `firstPort`. */
export const SANDBOX_PORTS = Object.values(emulatorPorts).reduce((sum, count) => sum + count, 0);

/** Each emulator's first port from `firstPort`, or undefined (the system picks). */
function portsFrom(first: number | undefined): Record<keyof typeof emulatorPorts, number | undefined> {
  let next = first;
  const ports = {} as Record<keyof typeof emulatorPorts, number | undefined>;
  for (const [name, count] of Object.entries(emulatorPorts) as Array<[keyof typeof emulatorPorts, number]>) {
    ports[name] = next;
    if (next !== undefined) next += count;
  }
  return ports;
}

/** Starts every emulator, with a little demo data so that list and get tools have something to show. */
export async function startSandbox({ limits = {}, firstPort }: SandboxOptions = {}): Promise<Sandbox> {
  const port = portsFrom(firstPort);
  const starting = [
    startHubspotEmulator({ limit: limits.CrmMarketingApi, port: port.hubspot }),
    startGithubEmulator({ limit: limits.RepoHostApi, port: port.github }),
    startCustomerioEmulator({ limit: limits.TrackingApi, port: port.customerio }),
    startClickupEmulator({ limit: limits.TaskboardApi, port: port.clickup }),
    startDropboxEmulator({ limit: limits.FileStore, port: port.dropbox }),
    startPylonEmulator({ limit: limits.SupportDesk, port: port.pylon }),
    startFigmaEmulator({ limit: limits.Design, port: port.figma }),
    startGraphEmulator({ limit: limits.MailClient, port: port.graph }),
  ] as const;
  // One that could not listen (its port in use): the others close, rather than keep the process up.
  const settled = await Promise.allSettled(starting);
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await Promise.all(settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.close() : undefined)));
    throw failed.reason;
  }
  const [hubspot, github, customerio, clickup, dropbox, pylon, figma, graph] = await Promise.all(starting);
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
