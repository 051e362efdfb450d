import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { localDispatcher, UpstreamClient } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
const child = spawn(process.execPath, [fileURLToPath(new URL('./emulator.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
const { url } = JSON.parse(await new Promise((r) => createInterface({ input: child.stdout }).once('line', r)));
const client = new UpstreamClient();
const d = localDispatcher(toolkits, { client, baseUrls: Object.fromEntries(toolkits.map((t) => [t.name, url])), token: 'bench-token' });
const c = await d.call('CrmMarketingApi.CreateMarketingCampaign', { mode: 'execute', request_body: JSON.stringify({ properties: { hs_name: 'B' } }) });
const id = c.value.id;
const t0 = Date.now();
let n = 0;
while (Date.now() - t0 < 8000) {
  const r = await d.call('CrmMarketingApi.GetCampaignDetails', { campaign_guid: id });
  if ('error' in r) throw new Error(r.error.message);
  n++;
}
console.log('calls', n);
await client.close();
child.kill();
