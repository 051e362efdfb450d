/** Every emulator at once, for `--sandbox`: base URLs by toolkit and a token they all accept. */
import { seedGithubDemo } from './github/demo.js';
import { startGithubEmulator } from './github/index.js';
import { seedHubspotDemo } from './hubspot/demo.js';
import { startHubspotEmulator } from './hubspot/index.js';

export interface Sandbox {
  baseUrls: Record<string, string>;
  token: string;
  close(): Promise<void>;
}

export const sandboxToken = 'quiver-sandbox-token';

/** Starts every emulator, with a little demo data so that list and get tools have something to show. */
export async function startSandbox(): Promise<Sandbox> {
  const [hubspot, github] = await Promise.all([startHubspotEmulator(), startGithubEmulator()]);
  await seedHubspotDemo(hubspot.url, sandboxToken);
  // On the code host the sandbox token is octocat, the owner of the demo repository.
  await seedGithubDemo(github.url, github.tokenFor('octocat', sandboxToken));
  return {
    baseUrls: { CrmMarketingApi: hubspot.url, RepoHostApi: github.url },
    token: sandboxToken,
    close: async () => {
      await Promise.all([hubspot.close(), github.close()]);
    },
  };
}
