/**
 * The answers of a pure function, kept for the keys it was last asked about, at most `bound` of them: past
 * that, it starts again empty (cheaper than keeping an order, and an answer is only ever worked out again).
 * What a long-running process is asked about has no end (descriptions, words, credentials, origins).
 */
export class BoundedMemo<K, V> {
  private readonly answers = new Map<K, V>();

  constructor(private readonly bound: number) {}

  get(key: K, work: (key: K) => V): V {
    if (this.answers.has(key)) return this.answers.get(key) as V;
    const answer = work(key);
    if (this.answers.size >= this.bound) this.answers.clear();
    this.answers.set(key, answer);
    return answer;
  }
}
