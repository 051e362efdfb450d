/** `quiver keys create|update --rpm N --concurrency N`: a key's own limits from the command line, audited, refused when they make no sense. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditTrail, openStore } from '@quiver/engine';
import { runCli } from '@quiver/test-support/run-cli';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = mkdtempSync(join(tmpdir(), 'quiver-keys-limits-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const keys = (...args: string[]) => runCli(['keys', ...args], { QUIVER_DATA_DIR: dataDir, DATABASE_URL: '' });

describe('quiver keys with limits', () => {
  it('creates a key with its own limits, changes them and gives them back to its role, each change audited', async () => {
    const created = await keys('create', '--name', 'agent', '--role', 'service', '--rpm', '100', '--concurrency', '5');
    expect(created.code, created.stderr).toBe(0);
    const prefix = created.stdout.trim().slice(0, 10);
    expect((await keys('list')).stdout).toMatch(new RegExp(`${prefix}… {2}service {2}agent {2}created \\S+ {2}rpm 100 {2}concurrency 5\\n`));

    const updated = await keys('update', prefix, '--rpm', 'default', '--concurrency', '0');
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stderr).toContain(`updated ${prefix}…: rpm its role's default, concurrency no limit`);
    expect((await keys('list')).stdout).toMatch(new RegExp(`${prefix}… {2}service {2}agent {2}created \\S+ {2}concurrency 0\\n`));

    const store = await openStore(join(dataDir, 'quiver.db'));
    try {
      const { items } = await new AuditTrail(store.db).list({ action: 'api_key.updated' }, 10, 0);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({
        actor: { type: 'cli' },
        change: { rpm: { from: 100, to: null }, concurrency: { from: 5, to: 0 } },
      });
      const [made] = (await new AuditTrail(store.db).list({ action: 'api_key.created' }, 10, 0)).items;
      expect(made!.change).toMatchObject({ role: 'service', rpm: 100, concurrency: 5 });
    } finally {
      await store.close();
    }
  });

  it.each([
    [['create', '--rpm', '-1'], "--rpm must be a whole number (0: no limit) or 'default', got '-1'"],
    [['create', '--concurrency', 'lots'], "--concurrency must be a whole number (0: no limit) or 'default', got 'lots'"],
    [['create', '--rpm', '2147483648'], "--rpm must be at most 2147483647, got '2147483648'"],
    [['update', 'qk_nothing', '--rpm', '5'], "no active API key with id or prefix 'qk_nothing'"],
    [['update', 'qk_nothing'], 'nothing to change: give --rpm, --concurrency or both'],
  ])('refuses %j as a usage error', async (args, message) => {
    const refused = await keys(...args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(message);
  });
});
