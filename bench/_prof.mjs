import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { mkdtempSync } from 'node:fs';
import { Agent, request } from 'undici';
const child = spawn(process.execPath, [fileURLToPath(new URL('./emulator.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
const { url } = JSON.parse(await new Promise((r) => createInterface({ input: child.stdout }).once('line', r)));
const res = await fetch(`${url}/marketing/v3/campaigns`, {
  method: 'POST',
  headers: { authorization: 'Bearer bench-token', 'content-type': 'application/json' },
  body: JSON.stringify({ properties: { hs_name: 'Bench' } }),
});
const { id } = await res.json();
const dir = mkdtempSync('/tmp/qb-');
const fixture = fileURLToPath(new URL('../packages/engine/test/fixtures/engine-process.mjs', import.meta.url));
const engine = spawn(
  process.execPath,
  ['--cpu-prof', '--cpu-prof-dir=/tmp/prof', '-e', `import(${JSON.stringify(fixture)}); setTimeout(() => process.exit(0), 25000)`],
  { env: { ...process.env, QUIVER_DATA_DIR: dir, BASE_URLS: JSON.stringify({ CrmMarketingApi: url }) }, stdio: ['ignore', 'pipe', 'inherit'] },
);
const e = JSON.parse(await new Promise((r) => createInterface({ input: engine.stdout }).once('line', r)));
const agent = new Agent({ connections: 8 });
const t0 = Date.now();
let n = 0;
while (Date.now() - t0 < 15000) {
  const r = await request(`${e.url}/v1/tools/execute`, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${e.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tool_name: 'CrmMarketingApi.GetCampaignDetails', user_id: 'bench', input: { campaign_guid: id } }),
  });
  await r.body.json();
  n++;
}
console.log('calls', n);
await new Promise((r) => engine.once('exit', r));
child.kill();
await agent.close();
