import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { engineBench } from './engine.mjs';
const child = spawn(process.execPath, [fileURLToPath(new URL('./emulator.mjs', import.meta.url))], { stdio: ['ignore', 'pipe', 'inherit'] });
const { url } = JSON.parse(await new Promise((r) => createInterface({ input: child.stdout }).once('line', r)));
const res = await fetch(`${url}/marketing/v3/campaigns`, {
  method: 'POST',
  headers: { authorization: 'Bearer bench-token', 'content-type': 'application/json' },
  body: JSON.stringify({ properties: { hs_name: 'Bench' } }),
});
const { id } = await res.json();
console.log(JSON.stringify(await engineBench(url, id, process.argv[2] || undefined, { blocks: Number(process.argv[3] ?? 5) }), null, 1));
child.kill();
