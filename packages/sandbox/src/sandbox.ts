/** Every emulator at once, for `--sandbox`: base URLs by toolkit and a token they all accept. */
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
  const hubspot = await startHubspotEmulator();
  await seedHubspotDemo(hubspot.url, sandboxToken);
  return {
    baseUrls: { CrmMarketingApi: hubspot.url },
    token: sandboxToken,
    close: () => hubspot.close(),
  };
}
