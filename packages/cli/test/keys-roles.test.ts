/** `quiver keys create --role ... [--user ...]`: keys with roles from the command line, refused when the pair makes no sense. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@quiver/test-support/run-cli';
import { afterAll, describe, expect, it } from 'vitest';

const dataDir = mkdtempSync(join(tmpdir(), 'quiver-keys-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const keys = (...args: string[]) => runCli(['keys', ...args], { QUIVER_DATA_DIR: dataDir });

describe('quiver keys with roles', () => {
  it('creates admin, service and user keys, and lists each with its role and user', async () => {
    for (const args of [
      ['--name', 'ops'],
      ['--name', 'backend', '--role', 'service'],
      ['--name', 'carol', '--user', 'carol'],
      ['--name', 'dan', '--role', 'user', '--user', 'dan'],
    ]) {
      const created = await keys('create', ...args);
      expect(created.code, created.stderr).toBe(0);
      expect(created.stdout.trim()).toMatch(/^qk_/);
    }
    const listed = (await keys('list')).stdout;
    expect(listed).toMatch(/ admin {2}ops /);
    expect(listed).toMatch(/ service {2}backend /);
    expect(listed).toMatch(/ user:carol {2}carol /);
    expect(listed).toMatch(/ user:dan {2}dan /);
  });

  it.each([
    [['--role', 'user'], 'a user key is bound to one user: name it with --user <id>'],
    [['--role', 'service', '--user', 'carol'], 'a service key acts for any user: a user id is for user keys only'],
    [['--role', 'root'], "'root' is invalid"],
  ])('refuses %j as a usage error', async (args, message) => {
    const refused = await keys('create', ...args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(message);
  });
});
