/** `quiver keys create` and `quiver keys revoke` leave events in the engine's audit trail, made by the command line. */
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditTrail, openStore } from '@quiver/engine';
import { runCli } from '@quiver/test-support/run-cli';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = mkdtempSync(join(tmpdir(), 'quiver-keys-audit-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const keys = (...args: string[]) => runCli(['keys', ...args], { QUIVER_DATA_DIR: dataDir, DATABASE_URL: '' });

describe('quiver keys in the audit trail, and by the prefix it lists', () => {
  it('records a key created and revoked from the command line, never the key', async () => {
    const created = await keys('create', '--name', 'deploy bot', '--role', 'service');
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    const revoked = await keys('revoke', key.slice(0, 10));
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await keys('revoke', key.slice(0, 10))).code).toBe(2);

    const store = await openStore(join(dataDir, 'quiver.db'));
    try {
      const { items, total_count } = await new AuditTrail(store.db).list({}, 10, 0);
      expect(total_count).toBe(2);
      const id = items[0]!.target.id;
      const actor = { type: 'cli', key_id: null, key_prefix: null, name: expect.stringContaining(hostname()), role: null };
      const change = { name: 'deploy bot', prefix: key.slice(0, 10), role: 'service', user_id: null, rpm: null, concurrency: null };
      expect(items.map(({ action, target, actor, client_address, change }) => ({ action, target, actor, client_address, change }))).toEqual([
        { action: 'api_key.revoked', target: { type: 'api_key', id }, actor, client_address: null, change },
        { action: 'api_key.created', target: { type: 'api_key', id }, actor, client_address: null, change },
      ]);
      expect(JSON.stringify(await store.db.selectFrom('audit_events').selectAll().execute())).not.toContain(key);
    } finally {
      await store.close();
    }
  });

  it('revokes a key by its prefix as `keys list` prints it, ellipsis and all', async () => {
    expect((await keys('create', '--name', 'pasted')).code).toBe(0);
    const line = (await keys('list')).stdout.split('\n').find((listed) => listed.includes('pasted'))!;
    const shown = line.split(/\s+/)[1]!;
    expect(shown).toMatch(/^qk_[\w-]+…$/);
    const revoked = await keys('revoke', shown);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await keys('list')).stdout.split('\n').find((listed) => listed.includes('pasted'))).toMatch(/ revoked /);
  });
});
