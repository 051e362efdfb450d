import { describe, expect, it } from 'vitest';
import { type Example, train } from './search-associations.js';

// Two tools that the first stage cannot tell apart (equal scores): "kick" asks for the one that removes, "invite"
// for the one that adds, and "member" is on both sides and so says nothing.
const sides = [
  ['remov', 'member'],
  ['add', 'member'],
];
const examples: Example[] = Array.from({ length: 40 }, (_, i) => ({
  tool: i % 2,
  asked: [i % 2 ? 'invit' : 'kick', 'member'],
  candidates: [
    { tool: 0, logScore: 0 },
    { tool: 1, logScore: 0 },
  ],
}));

describe('learned associations', () => {
  it('learns which request term speaks for which tool term', () => {
    const { weights } = train(examples, sides);
    expect(weights.get('kick|remov')).toBeGreaterThan(0.5);
    expect(weights.get('kick|add')).toBeLessThan(-0.5);
    expect(weights.get('invit|add')).toBeGreaterThan(0.5);
    expect(Math.abs(weights.get('member|member')!)).toBeLessThan(0.05);
  });

  it('trains until the order of the examples no longer matters', () => {
    const first = train(examples, sides, 1);
    const second = train(examples, sides, 977);
    expect(second.alpha).toBeCloseTo(first.alpha, 2);
    for (const [feature, weight] of first.weights) expect(second.weights.get(feature)).toBeCloseTo(weight, 2);
  });
});
