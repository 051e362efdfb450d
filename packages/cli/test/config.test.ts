/** The configuration module: every setting from flags, environment, config file and defaults, and the README's table of them. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineConfig, engineDefaults } from '@quiver/engine/config';
import { toolkits } from '@quiver/toolkits';
import { defaultDataDir, resolveSettings, settingDocs, settingsTable, type SettingSources } from '../src/config.js';
import { UsageError } from '../src/usage-error.js';

const cwd = mkdtempSync(join(tmpdir(), 'quiver-config-'));
const home = join(cwd, 'home');
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const settings = (partial: Partial<SettingSources> = {}) => resolveSettings({ flags: {}, env: {}, cwd, platform: 'linux', home, toolkits, ...partial });

describe('resolveSettings', () => {
  it('puts data where the platform expects it unless told otherwise', () => {
    expect(settings().dataDir).toBe(join(home, '.local', 'share', 'quiver'));
    expect(settings({ env: { XDG_DATA_HOME: '/xdg' } }).dataDir).toBe('/xdg/quiver');
    expect(defaultDataDir({}, 'darwin', '/Users/ada')).toBe('/Users/ada/Library/Application Support/quiver');
    expect(defaultDataDir({ LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local' }, 'win32', 'C:\\Users\\ada')).toBe(
      join('C:\\Users\\ada\\AppData\\Local', 'quiver'),
    );
    expect(settings({ env: { QUIVER_DATA_DIR: 'rel' } }).dataDir).toBe(join(cwd, 'rel'));
    expect(settings({ env: { QUIVER_DATA_DIR: '/env' }, flags: { dataDir: '/flag' } }).dataDir).toBe('/flag');
    expect(settings().database).toBe(join(home, '.local', 'share', 'quiver', 'quiver.db'));
    // Empty variables, as compose files leave them, count as unset.
    expect(settings({ env: { QUIVER_DATA_DIR: '', QUIVER_PUBLIC_URL: '', QUIVER_MASTER_KEY: '' } })).toMatchObject({
      dataDir: join(home, '.local', 'share', 'quiver'),
      publicUrl: undefined,
      masterKey: undefined,
    });
  });

  it('takes flags over the environment over the config file over the defaults', () => {
    const file = join(cwd, 'quiver.config.json');
    writeFileSync(
      file,
      JSON.stringify({
        dataDir: '/file-data',
        logLevel: 'debug',
        publicUrl: 'https://file.example/',
        database: 'postgres://file',
        toolkits: { FileStore: { baseUrl: 'http://file' } },
        tokens: { dropbox: 'file-token' },
        authProviders: [{ id: 'github' }],
      }),
    );
    try {
      const fromFile = settings();
      expect(fromFile).toMatchObject({
        configFile: file,
        dataDir: '/file-data',
        logLevel: 'debug',
        publicUrl: 'https://file.example',
        database: 'postgres://file',
        authProviders: [{ id: 'github' }],
      });
      expect(fromFile.upstream).toEqual({ toolkits: { FileStore: { baseUrl: 'http://file' } }, tokens: { dropbox: 'file-token' }, secrets: {} });
      const fromEnv = settings({
        env: {
          QUIVER_DATA_DIR: '/env-data',
          QUIVER_LOG_LEVEL: 'warn',
          DATABASE_URL: 'postgres://env',
          QUIVER_TOKEN_DROPBOX: 'env-token',
          QUIVER_BASE_URL_FILE_STORE: 'http://env',
          GIT_SERVER_URL: 'https://ghe',
        },
      });
      expect(fromEnv).toMatchObject({ dataDir: '/env-data', logLevel: 'warn', database: 'postgres://env' });
      expect(fromEnv.upstream).toEqual({
        toolkits: { FileStore: { baseUrl: 'http://env' } },
        tokens: { dropbox: 'env-token' },
        secrets: { GIT_SERVER_URL: 'https://ghe' },
      });
      expect(settings({ flags: { dataDir: '/flag-data' }, env: { QUIVER_DATA_DIR: '/env-data' } }).dataDir).toBe('/flag-data');
    } finally {
      rmSync(file);
    }
  });

  it('finds the config file named, in the working directory, or in the configuration directory', () => {
    expect(settings().configFile).toBeUndefined();
    const inConfigHome = join(cwd, 'xdg-config', 'quiver', 'config.json');
    mkdirSync(join(cwd, 'xdg-config', 'quiver'), { recursive: true });
    writeFileSync(inConfigHome, '{"projectName": "Mine"}');
    expect(settings({ env: { XDG_CONFIG_HOME: join(cwd, 'xdg-config') } })).toMatchObject({ configFile: inConfigHome, projectName: 'Mine' });
    expect(() => settings({ flags: { config: 'nope.json' } })).toThrow(new UsageError(`config file not found: ${join(cwd, 'nope.json')}`));
    expect(() => settings({ env: { QUIVER_CONFIG: 'nope.json' } })).toThrow(/config file not found/);
    writeFileSync(join(cwd, 'bad.json'), '{"logLevel": 3}');
    expect(() => settings({ flags: { config: 'bad.json' } })).toThrow(/bad.json: logLevel must be a string/);
    writeFileSync(join(cwd, 'bad.json'), '[1]');
    expect(() => settings({ flags: { config: 'bad.json' } })).toThrow(/must hold a JSON object/);
    writeFileSync(join(cwd, 'bad.json'), '{"authProviders": {}}');
    expect(() => settings({ flags: { config: 'bad.json' } })).toThrow(/authProviders must be an array/);
  });

  it.each([
    [{ QUIVER_LOG_LEVEL: 'loud' }, "QUIVER_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not 'loud'"],
    [{ QUIVER_LOG_FORMAT: 'xml' }, "QUIVER_LOG_FORMAT must be json or pretty, not 'xml'"],
    [{ QUIVER_PUBLIC_URL: 'notaurl' }, "QUIVER_PUBLIC_URL must be the engine's http:// or https:// URL, not 'notaurl'"],
    [
      { QUIVER_ALLOWED_ORIGINS: 'notanorigin' },
      "QUIVER_ALLOWED_ORIGINS: 'notanorigin' is not an origin (scheme, host and port only, e.g. https://app.example.com)",
    ],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => settings({ env })).toThrow(new UsageError(message));
  });

  it('reads a relative dataDir in the config file as relative to that file', () => {
    mkdirSync(join(cwd, 'conf'), { recursive: true });
    writeFileSync(join(cwd, 'conf', 'c.json'), '{"dataDir": "data"}');
    expect(settings({ flags: { config: 'conf/c.json' } }).dataDir).toBe(join(cwd, 'conf', 'data'));
  });

  // A misspelt setting was left unused without a word: a base URL under "baseURL" sent the calls to the real host.
  it.each([
    ['{"toolkitPath": ["x"]}', "no setting is named 'toolkitPath' (did you mean 'toolkitPaths'?); the settings are dataDir, database,"],
    ['{"datadir": "d", "colour": 1}', "no setting is named 'datadir' (did you mean 'dataDir'?), 'colour'; the settings are"],
    ['{"toolkits": {"CrmMarketingApi": {"baseURL": "http://127.0.0.1:9"}}}', "toolkits.CrmMarketingApi has no setting 'baseURL' (did you mean 'baseUrl'?)"],
    ['{"toolkits": {"CrmMarketingApi": "https://x.example"}}', 'toolkits.CrmMarketingApi must be an object'],
    ['{"toolkits": []}', 'toolkits must be an object of toolkits by name'],
    [
      '{"toolkits": {"RepohostApi": {"baseUrl": "http://127.0.0.1:9"}, "Github": {}}}',
      "toolkits names no toolkit 'RepohostApi' (did you mean 'RepoHostApi'?), 'Github'; the toolkits are CrmMarketingApi, RepoHostApi,",
    ],
    ['{"tokens": {"github": 5}}', 'tokens must be an object of strings by name'],
    ['{"logFormat": "xml"}', 'logFormat in config file'],
    ['{"logLevel": "loud"}', "must be one of fatal, error, warn, info, debug, trace, silent, not 'loud'"],
    ['{"publicUrl": "ftp://quiver.example"}', 'publicUrl in config file'],
  ])('refuses the config file %s, naming what is wrong', (text, message) => {
    writeFileSync(join(cwd, 'bad.json'), text);
    expect(() => settings({ flags: { config: 'bad.json' } })).toThrow(UsageError);
    expect(() => settings({ flags: { config: 'bad.json' } })).toThrow(message);
  });

  it('keeps audit events 90 days and drains for no time unless told, refusing what is not a whole number', () => {
    expect(settings()).toMatchObject({ auditRetentionDays: 90, drainSeconds: 0 });
    expect(settings({ env: { QUIVER_AUDIT_RETENTION_DAYS: '365', QUIVER_DRAIN_SECONDS: '15' } })).toMatchObject({ auditRetentionDays: 365, drainSeconds: 15 });
    expect(settings({ env: { QUIVER_AUDIT_RETENTION_DAYS: '0' } }).auditRetentionDays).toBe(0);
    for (const value of ['-1', '1.5', 'forever']) {
      expect(() => settings({ env: { QUIVER_AUDIT_RETENTION_DAYS: value } })).toThrow(
        new UsageError(`QUIVER_AUDIT_RETENTION_DAYS must be a whole number of days (0 keeps events for ever), not '${value}'`),
      );
    }
    expect(() => settings({ env: { QUIVER_DRAIN_SECONDS: '10m' } })).toThrow(
      new UsageError("QUIVER_DRAIN_SECONDS must be a whole number of seconds from 0 to 300, not '10m'"),
    );
    expect(() => settings({ env: { QUIVER_DRAIN_SECONDS: '301' } })).toThrow(/QUIVER_DRAIN_SECONDS/);
  });

  it("keeps immediate calls' input and result unless QUIVER_RECORD_CALL_DATA turns it off, refusing what is not a switch", () => {
    expect(settings().recordCallData).toBe(true);
    for (const value of ['off', 'FALSE', '0']) expect(settings({ env: { QUIVER_RECORD_CALL_DATA: value } }).recordCallData).toBe(false);
    for (const value of ['on', 'true', '1']) expect(settings({ env: { QUIVER_RECORD_CALL_DATA: value } }).recordCallData).toBe(true);
    expect(() => settings({ env: { QUIVER_RECORD_CALL_DATA: 'no' } })).toThrow(
      new UsageError("QUIVER_RECORD_CALL_DATA must be on or off (true or false, 1 or 0), not 'no'"),
    );
  });

  it('reads the upstream limits, a wait for a spent rate-limit budget of 0 (fail at once) included', () => {
    expect(settings().upstreamLimits).toEqual({});
    expect(settings({ env: { QUIVER_UPSTREAM_DEADLINE_MS: '30000', QUIVER_UPSTREAM_WAIT_MS: '5000' } }).upstreamLimits).toEqual({
      deadlineMs: 30_000,
      budgetWaitMs: 5_000,
    });
    expect(settings({ env: { QUIVER_UPSTREAM_WAIT_MS: '0' } }).upstreamLimits).toEqual({ budgetWaitMs: 0 });
    for (const value of ['-1', '1.5', '5s']) {
      expect(() => settings({ env: { QUIVER_UPSTREAM_WAIT_MS: value } })).toThrow(
        new UsageError(`QUIVER_UPSTREAM_WAIT_MS must be a whole number (0 or more), not "${value}".`),
      );
    }
    expect(() => settings({ env: { QUIVER_UPSTREAM_DEADLINE_MS: '0' } })).toThrow(
      new UsageError('QUIVER_UPSTREAM_DEADLINE_MS must be a positive whole number, not "0".'),
    );
  });

  it('resolves how people sign in from QUIVER_OIDC_* and QUIVER_AUTH_*, refusing what it cannot use', () => {
    expect(settings().authorizationServer).toEqual({
      identityProvider: undefined,
      keyUser: undefined,
      accessTokenTtl: 600,
      refreshTokenTtl: 30 * 24 * 3600,
      insecureClientDocuments: false,
      rateLimits: { register: 10, authorize: 60, token: 60 },
    });
    const env = {
      QUIVER_OIDC_ISSUER: ' https://id.example.com/realm ',
      QUIVER_OIDC_CLIENT_ID: 'quiver',
      QUIVER_OIDC_CLIENT_SECRET: 'shh',
      QUIVER_OIDC_SCOPES: 'openid, email profile',
      QUIVER_AUTH_KEY_USER: ' owner@example.com ',
      QUIVER_AUTH_ACCESS_TOKEN_TTL: '300',
      QUIVER_AUTH_REFRESH_TOKEN_TTL: '86400',
      QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS: '1',
      QUIVER_AUTH_RATE_LIMIT: 'register:0, token:5',
    };
    expect(settings({ env }).authorizationServer).toEqual({
      identityProvider: {
        issuer: 'https://id.example.com/realm',
        clientId: 'quiver',
        clientSecret: 'shh',
        scopes: ['openid', 'email', 'profile'],
        name: 'id.example.com',
      },
      keyUser: 'owner@example.com',
      accessTokenTtl: 300,
      refreshTokenTtl: 86400,
      insecureClientDocuments: true,
      rateLimits: { register: 0, authorize: 60, token: 5 },
    });
    expect(
      settings({ env: { QUIVER_OIDC_ISSUER: 'https://id.example.com', QUIVER_OIDC_CLIENT_ID: 'quiver', QUIVER_OIDC_NAME: 'Example ID' } }).authorizationServer
        .identityProvider,
    ).toEqual({
      issuer: 'https://id.example.com',
      clientId: 'quiver',
      clientSecret: undefined,
      scopes: ['openid'],
      name: 'Example ID',
    });
    expect(() => settings({ env: { QUIVER_OIDC_ISSUER: 'https://id.example.com' } })).toThrow(
      new UsageError('QUIVER_OIDC_CLIENT_ID is required with QUIVER_OIDC_ISSUER'),
    );
    expect(() => settings({ env: { QUIVER_OIDC_ISSUER: 'id.example.com', QUIVER_OIDC_CLIENT_ID: 'quiver' } })).toThrow(
      new UsageError("QUIVER_OIDC_ISSUER must be a URL, got 'id.example.com'"),
    );
    expect(() => settings({ env: { QUIVER_AUTH_ACCESS_TOKEN_TTL: '0' } })).toThrow(
      new UsageError("QUIVER_AUTH_ACCESS_TOKEN_TTL must be a whole number of seconds, got '0'"),
    );
    expect(() => settings({ env: { QUIVER_AUTH_RATE_LIMIT: 'login:5' } })).toThrow(
      new UsageError("QUIVER_AUTH_RATE_LIMIT must look like register:10,authorize:60,token:60 (requests per minute, 0 for none), got 'login:5'"),
    );
    // A switch like every other: `true` turns it on, and a word that is no switch is refused rather than read as off.
    expect(settings({ env: { QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS: 'true' } }).authorizationServer.insecureClientDocuments).toBe(true);
    expect(settings({ env: { QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS: 'off' } }).authorizationServer.insecureClientDocuments).toBe(false);
    expect(() => settings({ env: { QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS: 'yes' } })).toThrow(
      new UsageError("QUIVER_AUTH_INSECURE_CLIENT_DOCUMENTS must be on or off (true or false, 1 or 0), not 'yes'"),
    );
  });

  it("hands the engine its settings as resolved, over the engine's own defaults", () => {
    const resolved = settings({ env: { QUIVER_PROJECT_NAME: 'Acme', QUIVER_REDIS_PREFIX: 'acme:', QUIVER_DRAIN_SECONDS: '5' } });
    const config = engineConfig({ ...resolved, host: '0.0.0.0', port: 8080 });
    expect(config).toMatchObject({ projectName: 'Acme', redisPrefix: 'acme:', drainSeconds: 5, host: '0.0.0.0', port: 8080 });
    expect(config.authorizationServer).toBe(resolved.authorizationServer);
    expect(config).not.toHaveProperty('logLevel');
    const defaults = settings();
    expect(defaults).toMatchObject({
      database: join(defaults.dataDir, engineDefaults.databaseFile),
      projectName: engineDefaults.projectName,
      redisPrefix: engineDefaults.redisPrefix,
      auditRetentionDays: engineDefaults.auditRetentionDays,
      recordCallData: engineDefaults.recordCallData,
      drainSeconds: engineDefaults.drainSeconds,
      drainTimeoutSeconds: engineDefaults.drainTimeoutSeconds,
    });
    expect(engineConfig({ ...defaults })).toMatchObject({ host: engineDefaults.host, port: engineDefaults.port });
  });

  it('takes the worker secret from flags or the environment', () => {
    expect(settings({ flags: { secret: 's1' } }).workerSecret).toEqual({ variable: 'QUIVER_WORKER_SECRET', value: 's1' });
    expect(settings({ env: { QUIVER_WORKER_SECRET: 's2' } }).workerSecret.value).toBe('s2');
    expect(settings({ flags: { secretEnv: 'MINE' }, env: { MINE: 's3' } }).workerSecret).toEqual({ variable: 'MINE', value: 's3' });
    expect(settings().workerSecret).toEqual({ variable: 'QUIVER_WORKER_SECRET', value: undefined });
  });

  it("takes the sandbox's first port from the flag, the environment or the config file, refusing what is no port from 1024", () => {
    expect(settings().sandboxPorts).toBeUndefined();
    const file = join(cwd, 'ports.json');
    writeFileSync(file, '{"sandboxPorts": 9400}');
    try {
      expect(settings({ flags: { config: file } }).sandboxPorts).toEqual({ first: 9400, from: `config file ${file}: sandboxPorts` });
      expect(settings({ flags: { config: file }, env: { QUIVER_SANDBOX_PORTS: '9500' } }).sandboxPorts).toEqual({ first: 9500, from: 'QUIVER_SANDBOX_PORTS' });
      expect(settings({ flags: { config: file, sandboxPorts: '9600' }, env: { QUIVER_SANDBOX_PORTS: '9500' } }).sandboxPorts).toEqual({
        first: 9600,
        from: '--sandbox-ports',
      });
      writeFileSync(file, '{"sandboxPorts": "high"}');
      expect(() => settings({ flags: { config: file } })).toThrow(
        new UsageError(`config file ${file}: sandboxPorts must be the first of the sandbox's ports, a whole number from 1024 to 65535, not 'high'`),
      );
    } finally {
      rmSync(file);
    }
    for (const value of ['1023', '65536', '9000.5', ' ']) {
      expect(() => settings({ flags: { sandboxPorts: value } })).toThrow(
        new UsageError(`--sandbox-ports must be the first of the sandbox's ports, a whole number from 1024 to 65535, not '${value}'`),
      );
    }
  });
});

describe("the README's settings table", () => {
  it('is the one the configuration module renders', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(settingDocs.length).toBeGreaterThan(0);
    expect(readme).toContain(settingsTable());
  });

  it('names every environment variable the module reads', () => {
    const source = readFileSync(new URL('../src/config.ts', import.meta.url), 'utf8');
    const read = [...source.matchAll(/env\.([A-Z_]+)/g)].map((match) => match[1]!).filter((name) => name.startsWith('QUIVER_') || name === 'DATABASE_URL');
    expect(read.length).toBeGreaterThan(0);
    const documented = settingDocs.map((doc) => doc.env ?? '').join(' ');
    for (const name of new Set(read)) expect(documented).toContain(name);
  });
});
