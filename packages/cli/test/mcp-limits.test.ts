/** `quiver mcp` at the edge of what its standard input accepts: never silence. */
import { spawn } from 'node:child_process';
import { cliPath } from '@quiver/test-support/run-cli';
import { describe, expect, it } from 'vitest';

describe('quiver mcp with an oversized message', () => {
  it('answers a JSON-RPC error naming the limit and exits with status 1', async () => {
    const child = spawn(process.execPath, [cliPath, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // The process may stop reading before the whole message is written.
    child.stdin.on('error', () => {});
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'CrmMarketingApi.GetCampaignDetails', arguments: { campaign_guid: 'x'.repeat(11_000_000) } },
    };
    child.stdin.write(`${JSON.stringify(call)}\n`);

    expect(await exited).toBe(1);
    const answer = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('larger than the server accepts') } });
    expect(stderr).toContain('larger than the server accepts');
  });
});
