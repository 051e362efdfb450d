import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../src/bounded-memo.js';

describe('a bounded memo', () => {
  it('works each key out once, null answers included, and starts again empty past its bound', () => {
    const asked: string[] = [];
    const memo = new BoundedMemo<string, string | null>(2);
    const work = (key: string) => {
      asked.push(key);
      return key === 'none' ? null : key.toUpperCase();
    };
    expect([memo.get('a', work), memo.get('none', work), memo.get('a', work), memo.get('none', work)]).toEqual(['A', null, 'A', null]);
    expect(asked).toEqual(['a', 'none']);
    // A third key empties it: both are worked out again.
    memo.get('b', work);
    memo.get('a', work);
    memo.get('none', work);
    expect(asked).toEqual(['a', 'none', 'b', 'a', 'none']);
  });
});
