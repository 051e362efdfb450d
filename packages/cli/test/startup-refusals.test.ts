/**
 * `quiver serve` refuses to start wrong, through its real entry point: a database location it does not
 * understand, or a master key that cannot open the database's sealed data, ends it with one line and
 * status 1, before it listens.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cliPath, runCli } from '@quiver/test-support/run-cli';
import { afterAll, describe, expect, it } from 'vitest';

const scratch = mkdtempSync(join(tmpdir(), 'quiver-refusals-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Lines on standard error, without empty ones. */
const lines = (text: string) => text.split('\n').filter((line) => line.trim());

describe('quiver serve refuses to start', () => {
  it.each(['mysql://root:hunter2@db.example/quiver', 'notaurl'])('with DATABASE_URL=%s, in one line, creating nothing', async (location) => {
    const cwd = mkdtempSync(join(scratch, 'cwd-'));
    const run = await runCli(['serve', '--port', '0'], { QUIVER_DATA_DIR: join(scratch, 'data-url'), DATABASE_URL: location }, cwd);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([expect.stringMatching(/^quiver: DATABASE_URL .*postgres:\/\/.*absolute path of a SQLite file/)]);
    expect(run.stderr).not.toContain('hunter2');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('with a master key that cannot open the database, in one line', async () => {
    const env = { QUIVER_DATA_DIR: mkdtempSync(join(scratch, 'data-')), QUIVER_MASTER_KEY: randomBytes(32).toString('hex') };
    // A first start seals the check value with the first key.
    const first = spawn(process.execPath, [cliPath, 'serve', '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    await new Promise<void>((resolve) => createInterface({ input: first.stderr }).on('line', (line) => line.includes('data in') && resolve()));
    first.kill('SIGTERM');
    expect(await new Promise((resolve) => first.once('exit', resolve))).toBe(0);

    const run = await runCli(['serve', '--port', '0'], { ...env, QUIVER_MASTER_KEY: randomBytes(32).toString('hex') });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([expect.stringMatching(/^quiver: the master key from QUIVER_MASTER_KEY cannot open the data sealed in the database/)]);
  });
});
