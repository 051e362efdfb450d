/**
 * A budget's key is an HMAC of the credential: computed once per credential, not on every call, and the
 * same key whether it was computed just now or remembered (past the bound, it is computed again).
 */
import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryBudgetStore, UpstreamBudgets, type BudgetStore } from '../src/budgets.js';
import type { UpstreamRequest } from '../src/request.js';

/** How many HMACs were made since the last test began. */
const counted = vi.hoisted(() => ({ hmacs: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  const createHmac: typeof actual.createHmac = (...args) => {
    counted.hmacs++;
    return actual.createHmac(...args);
  };
  return { ...actual, createHmac };
});

const secret = Buffer.alloc(32, 3);
const origin = 'https://api.example.com';
const request = (token: string): UpstreamRequest => ({ method: 'GET', url: `${origin}/things`, headers: { authorization: `Bearer ${token}` } });
const keyOf = (token: string) => `${origin}|${createHmac('sha256', secret).update(`Bearer ${token}`).digest('base64url')}`;

/** Budgets whose store holds every origin, and the keys it was asked for. */
function budgets(maxKeys?: number) {
  const keys: string[] = [];
  const memory = new MemoryBudgetStore();
  const store: BudgetStore = {
    mayHold: () => true,
    take(key, resource, now) {
      keys.push(key);
      return memory.take(key, resource, now);
    },
    record: (key, origin, reading, now) => memory.record(key, origin, reading, now),
  };
  return { keys, budgets: new UpstreamBudgets({ store, secret }, maxKeys) };
}

describe('budget keys', () => {
  beforeEach(() => {
    counted.hmacs = 0;
  });

  it('hashes a credential once, however many calls it makes', () => {
    const { keys, budgets: b } = budgets();
    for (let i = 0; i < 5; i++) b.wait(b.budgetOf(request('one'))!);
    expect(counted.hmacs).toBe(1);
    b.wait(b.budgetOf(request('two'))!);
    expect(counted.hmacs).toBe(2);
    expect(keys).toEqual([...Array(5).fill(keyOf('one')), keyOf('two')]);
    expect(keys.join()).not.toContain('one|');
  });

  it('remembers a bounded number of credentials, and gives a forgotten one the same key again', () => {
    const { keys, budgets: b } = budgets(2);
    for (const token of ['one', 'two', 'three', 'one']) b.wait(b.budgetOf(request(token))!);
    // 'three' found the memory full: 'one' was forgotten, and hashed again to the same key.
    expect(counted.hmacs).toBe(4);
    expect(keys).toEqual([keyOf('one'), keyOf('two'), keyOf('three'), keyOf('one')]);
  });
});
