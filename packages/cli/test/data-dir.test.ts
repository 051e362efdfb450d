/** The data directory holds sealed tokens and key hashes: its owner's alone, whichever command creates it. */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@quiver/test-support/run-cli';
import { afterAll, describe, expect, it } from 'vitest';

const parent = mkdtempSync(join(tmpdir(), 'quiver-data-dir-test-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

describe('the data directory', () => {
  it('is 0700 and its database 0600 when `quiver keys create` runs before `serve`', async () => {
    const dataDir = join(parent, 'fresh', '.quiver');
    const created = await runCli(['keys', 'create', '--name', 'first'], { QUIVER_DATA_DIR: dataDir });
    expect(created.code, created.stderr).toBe(0);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, 'quiver.db'))).toBe(0o600);
  });
});
