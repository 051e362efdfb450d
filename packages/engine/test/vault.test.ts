import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMasterKey, Vault } from '@quiver/engine';
import { describe, expect, it } from 'vitest';

describe('vault', () => {
  const vault = new Vault(Buffer.alloc(32, 7));

  it('seals with a fresh nonce each time and opens what it sealed', () => {
    const a = vault.seal('token-value');
    const b = vault.seal('token-value');
    expect(a).not.toBe(b);
    expect(a).not.toContain('token-value');
    expect(a).toMatch(/^v1\./);
    expect(vault.open(a)).toBe('token-value');
  });

  it('refuses a tampered value and another key', () => {
    const sealed = vault.seal('token-value');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0]! ^= 1;
    expect(() => vault.open([...parts.slice(0, 3), flipped.toString('base64url')].join('.'))).toThrow();
    expect(() => new Vault(Buffer.alloc(32, 8)).open(sealed)).toThrow();
    expect(() => vault.open('plain text')).toThrow('not a sealed value');
  });

  it('creates the key file with mode 0600 on first start and reuses it', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'quiver-key-')), 'data', 'master.key');
    const key = loadMasterKey(undefined, file);
    expect(key).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadMasterKey(undefined, file)).toEqual(key);
    expect(readFileSync(file, 'utf8').trim()).toBe(key.toString('hex'));
  });

  it('takes the key from the environment as hex or base64, and refuses a wrong length', () => {
    const hex = 'ab'.repeat(32);
    expect(loadMasterKey(hex, '/nonexistent/key')).toEqual(Buffer.from(hex, 'hex'));
    expect(loadMasterKey(Buffer.alloc(32, 1).toString('base64'), '/nonexistent/key')).toEqual(Buffer.alloc(32, 1));
    expect(() => loadMasterKey('too-short', '/nonexistent/key')).toThrow('32 bytes');
  });
});
