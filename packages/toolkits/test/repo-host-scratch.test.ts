import { writeFileSync } from 'node:fs';
import { startGithubEmulator, createClock } from '@quiver/sandbox';
import { it } from 'vitest';
import { catalog, inputFor, recording, RepoHostClient, matchesTemplate } from './repo-host.helpers.js';

it('scratch', async () => {
  const emulator = await startGithubEmulator({ clock: createClock(Date.UTC(2025, 0, 15)) });
  const me = new RepoHostClient(emulator, emulator.tokenFor('octocat'));
  await me.execute('CreateRepohostRepoForUser', {}, { name: 'hello-world', auto_init: true }).catch((e) => console.log(String(e)));
  const known = { owner: 'octocat', repo: 'hello-world', org: 'octo-org', username: 'monalisa' };
  const out: any[] = [];
  const started = Date.now();
  const tools = [...catalog.tools].sort((a, b) => Number(a.http.method === 'DELETE') - Number(b.http.method === 'DELETE'));
  for (const tool of tools) {
    const input = inputFor(tool, known);
    const { result, requests } = await recording(emulator, () => me.attempt(tool.name, input));
    const e = 'error' in result ? result.error : undefined;
    out.push({ tool: tool.name, method: tool.http.method, path: tool.http.path, input, n: requests.length, matched: requests.every((r) => r.method === tool.http.method && matchesTemplate(tool.http.path, r.path)), sent: requests.map(r => r.method + ' ' + r.path), kind: e?.kind, status: e?.status_code, msg: e && (e.message + ' | ' + (e.developer_message ?? '')).slice(0, 600) });
  }
  console.log('ms', Date.now() - started);
  writeFileSync('/tmp/rh/out.json', JSON.stringify(out, null, 1));
  await emulator.close();
}, 120000);
