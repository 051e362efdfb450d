/**
 * The bound of a result's JSON length that spares a small result its JSON being written out only to be
 * measured: never below the real length, and Infinity whenever it cannot tell (then the JSON is written).
 */
import { describe, expect, it } from 'vitest';
import { jsonLengthBound } from '../src/response.js';

const values: unknown[] = [
  'plain',
  'quote " backslash \\ newline \n tab \t nul \u0000',
  'emoji 🎉 and a lone \ud800 surrogate',
  '',
  0,
  -0,
  -1.7976931348623157e308,
  5e-324,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  null,
  [],
  {},
  [1, 'two', null, undefined, { three: [3] }],
  { id: 'c1', name: 'Bench "campaign"', nested: { list: [{ a: 1 }, { b: [true, false] }], empty: {} }, skipped: undefined },
  { 'key with "quotes"': 'value', ünïcödé: 'ß' },
  Object.assign(Object.create(null), { bare: 'object' }),
];

describe('the JSON length bound', () => {
  it('is never below the length of the JSON', () => {
    for (const value of values) expect(jsonLengthBound(value, 1_000_000)).toBeGreaterThanOrEqual((JSON.stringify(value) ?? '').length);
  });

  it('is exact, but for the room each scalar may need, for plain text', () => {
    expect(jsonLengthBound('abc', 100)).toBe(5);
    expect(jsonLengthBound({ a: 'b' }, 100)).toBe(JSON.stringify({ a: 'b' }).length + 1);
  });

  it('gives up past the limit, and on what it cannot measure cheaply', () => {
    expect(jsonLengthBound('x'.repeat(50), 10)).toBeLessThanOrEqual(52);
    expect(jsonLengthBound(['x'.repeat(50), 'y'], 10)).toBe(Number.POSITIVE_INFINITY);
    expect(jsonLengthBound({ a: 'x'.repeat(50) }, 10)).toBe(Number.POSITIVE_INFINITY);
    expect(jsonLengthBound(new Date(0), 1000)).toBe(Number.POSITIVE_INFINITY);
    expect(jsonLengthBound({ toJSON: () => 'x' }, 1000)).toBe(Number.POSITIVE_INFINITY);
    expect(jsonLengthBound(new Map(), 1000)).toBe(Number.POSITIVE_INFINITY);
    expect(jsonLengthBound(10n, 1000)).toBe(Number.POSITIVE_INFINITY);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(jsonLengthBound(cycle, 1_000_000)).toBe(Number.POSITIVE_INFINITY);
  });
});
