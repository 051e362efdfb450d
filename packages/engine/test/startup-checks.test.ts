/**
 * The engine refuses to start wrong: a database location it does not understand, or a master key that
 * cannot open what is sealed in the database, stops it with one line saying what to fix, rather than a
 * new empty SQLite file or a start whose every tool call then fails.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databases, havePostgres, postgresUrl, testDatabase } from '@quiver/test-support/harness';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { engineConfig } from '../src/config.js';
import { openEngine } from '../src/engine.js';
import { openStore } from '../src/store/db.js';

const scratch = mkdtempSync(join(tmpdir(), 'quiver-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const newKey = () => randomBytes(32).toString('hex');

describe('the database location', () => {
  it.each([
    ['mysql://root:hunter2@db.example/quiver', "'mysql:'"],
    ['sqlite://quiver.db', "'sqlite:'"],
    ['https://db.example/quiver', "'https:'"],
    ['notaurl', "'notaurl'"],
    ['data/quiver.db', "'data/quiver.db'"],
  ])('refuses %s in one line naming the variable and what it accepts, creating nothing', async (location, named) => {
    // In an empty working directory of its own, where a relative path would have created a file.
    const cwd = mkdtempSync(join(scratch, 'cwd-'));
    const previous = process.cwd();
    process.chdir(cwd);
    const refusal = await openStore(location)
      .then(
        (store) => store.close().then(() => undefined),
        (error: Error) => error.message,
      )
      .finally(() => process.chdir(previous));
    expect(readdirSync(cwd)).toEqual([]);
    expect(refusal).toBeDefined();
    expect(refusal).not.toContain('\n');
    expect(refusal).toContain('DATABASE_URL');
    expect(refusal).toContain(named);
    expect(refusal).toContain('postgres://');
    expect(refusal).toContain('absolute path');
    // Credentials in a URL are never repeated.
    expect(refusal).not.toContain('hunter2');
  });

  it('opens an absolute SQLite path and :memory:', async () => {
    for (const location of [join(scratch, 'absolute.db'), ':memory:']) {
      const store = await openStore(location);
      expect(store.dialect).toBe('sqlite');
      await store.close();
    }
  });

  it.skipIf(!havePostgres)('opens postgres:// and postgresql:// URLs', async () => {
    // In a schema of its own: the shared database may hold another revision's migrations.
    const { database, drop } = await testDatabase('postgres', scratch);
    try {
      for (const location of [database, database.replace(/^postgres:/, 'postgresql:')]) {
        const store = await openStore(location);
        expect(store.dialect).toBe('postgres');
        await store.close();
      }
    } finally {
      await drop();
    }
  });

  // Kysely's own look at the tables read every schema of the database and failed where one was dropped meanwhile.
  it.skipIf(!havePostgres)('opens again and again while other schemas of the same database are created and dropped', async () => {
    const churn = new pg.Client({ connectionString: postgresUrl });
    await churn.connect();
    const prefix = `quiver_churn_${randomBytes(4).toString('hex')}`;
    let churning = true;
    let churned = 0;
    const churner = (async () => {
      while (churning) {
        const schema = `${prefix}_${churned++ % 20}`;
        await churn.query(`create schema if not exists ${schema}`);
        await churn.query(`drop schema ${schema}`);
      }
    })();
    const { database, drop } = await testDatabase('postgres', scratch);
    let opened = 0;
    try {
      // Migrated at the first, found migrated at the others: each looks at the tables.
      for (; opened < 30; opened++) await (await openStore(database)).close();
    } finally {
      churning = false;
      await churner;
      await churn.end();
      await drop();
    }
    expect(opened).toBe(30);
    expect(churned).toBeGreaterThan(30);
  });
});

describe.each(databases)('the master key on $name', ({ name, skip }) => {
  it.skipIf(skip)('refuses a key that cannot open the database, naming where the key came from', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const { database, drop } = await testDatabase(name, dataDir);
    const open = (settings: { masterKey?: string; dataDir?: string }) =>
      openEngine({ config: engineConfig({ dataDir, database, port: 0, ...settings }), toolkits: [] });
    try {
      const first = newKey();
      const engine = await open({ masterKey: first });
      await engine.secrets.put('SOME_SECRET', 'sealed-with-the-first-key');
      await engine.close();

      const wrongKey = await open({ masterKey: newKey() }).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(wrongKey).toMatch(/QUIVER_MASTER_KEY/);
      expect(wrongKey).not.toContain('\n');

      // Another engine whose key is its own key file, sharing the database.
      const otherDir = mkdtempSync(join(scratch, 'other-'));
      const wrongFile = await open({ dataDir: otherDir }).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(wrongFile).toContain(join(otherDir, 'master.key'));

      // The right key still opens it, and what it sealed.
      const again = await open({ masterKey: first });
      expect(await again.secrets.reveal(['SOME_SECRET'])).toEqual({ SOME_SECRET: 'sealed-with-the-first-key' });
      await again.close();
    } finally {
      await drop();
    }
  });

  it.skipIf(skip)('checks a database sealed before the check value existed against what it holds', async () => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const { database, drop } = await testDatabase(name, dataDir);
    const open = (masterKey: string) => openEngine({ config: engineConfig({ dataDir, database, port: 0, masterKey }), toolkits: [] });
    try {
      const first = newKey();
      const engine = await open(first);
      await engine.secrets.put('OLDER_SECRET', 'sealed-before-the-check');
      // As a database of an earlier version: sealed data, and no check value.
      await engine.store.db.deleteFrom('settings').where('key', '=', 'master_key_check').execute();
      await engine.close();

      await expect(open(newKey())).rejects.toThrow(/QUIVER_MASTER_KEY/);
      const right = await open(first);
      await right.close();
    } finally {
      await drop();
    }
  });
});
