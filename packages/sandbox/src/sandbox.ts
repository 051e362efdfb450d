/** Every emulator at once, for `--sandbox`: base URLs by toolkit and a token they all accept. */
import { startHubspotEmulator } from './hubspot/index.js';

export interface Sandbox {
  baseUrls: Record<string, string>;
  token: string;
  close(): Promise<void>;
}

export const sandboxToken = 'quiver-sandbox-token';

export async function startSandbox(): Promise<Sandbox> {
  const hubspot = await startHubspotEmulator();
  return {
    baseUrls: { CrmMarketingApi: hubspot.url },
    token: sandboxToken,
    close: () => hubspot.close(),
  };
}
