/**
 * The SupportDesk search pieces on their own: the query language, that the ranking is BM25 (checked
 * against the formula computed here), stemming, the fuzzy name confidence, and the acceptance rules.
 */
import { stemmer } from 'stemmer';
import { describe, expect, it } from 'vitest';
import { judgeConfidences, judgeScores, scoreGap } from '../src/support-desk/acceptance.js';
import { htmlToText, textToHtml } from '../src/support-desk/html.js';
import { parseQuery, QueryError } from '../src/support-desk/issue-query.js';
import { BM25, FIELD_WEIGHTS, rankIssues } from '../src/support-desk/issue-ranking.js';
import { matchNames } from '../src/support-desk/name-matching.js';

describe('the query language', () => {
  it('reads adjacent words as OR, AND tighter than OR, NOT joined without an operator as an exclusion', () => {
    expect(parseQuery('refund card')).toEqual({
      kind: 'or',
      operands: [
        { kind: 'word', text: 'refund' },
        { kind: 'word', text: 'card' },
      ],
    });
    expect(parseQuery('a AND b OR c')).toEqual({
      kind: 'or',
      operands: [
        {
          kind: 'and',
          operands: [
            { kind: 'word', text: 'a' },
            { kind: 'word', text: 'b' },
          ],
        },
        { kind: 'word', text: 'c' },
      ],
    });
    expect(parseQuery('refund card NOT duplicate')).toEqual({
      kind: 'without',
      include: {
        kind: 'or',
        operands: [
          { kind: 'word', text: 'refund' },
          { kind: 'word', text: 'card' },
        ],
      },
      exclude: { kind: 'word', text: 'duplicate' },
    });
    expect(parseQuery('a OR NOT b')).toEqual({
      kind: 'or',
      operands: [
        { kind: 'word', text: 'a' },
        { kind: 'not', operand: { kind: 'word', text: 'b' } },
      ],
    });
    expect(parseQuery('NOT b')).toEqual({ kind: 'not', operand: { kind: 'word', text: 'b' } });
    expect(parseQuery('a AND (b OR c)')).toEqual({
      kind: 'and',
      operands: [
        { kind: 'word', text: 'a' },
        {
          kind: 'or',
          operands: [
            { kind: 'word', text: 'b' },
            { kind: 'word', text: 'c' },
          ],
        },
      ],
    });
    // Lower-case operators are words; punctuation alone is dropped.
    expect(parseQuery('and - or')).toEqual({
      kind: 'or',
      operands: [
        { kind: 'word', text: 'and' },
        { kind: 'word', text: 'or' },
      ],
    });
  });

  it.each(['refund AND', 'OR refund', 'refund OR', 'NOT', '(refund', 'refund)', '()', 'a AND AND b', '  ', '- -'])('refuses %j', (query) => {
    expect(() => parseQuery(query)).toThrow(QueryError);
  });
});

interface Doc {
  title: string;
  body_html: string;
}

/** BM25 of one term in one field, from the textbook formula with Lucene's non-negative idf. */
function bm25(tf: number, docsWithTerm: number, docs: number, length: number, averageLength: number): number {
  const idf = Math.log(1 + (docs - docsWithTerm + 0.5) / (docsWithTerm + 0.5));
  return (idf * (tf * (BM25.k + 1))) / (tf + BM25.k * (1 - BM25.b + (BM25.b * length) / averageLength));
}

describe('ranking', () => {
  const docs: Doc[] = [
    { title: 'Refund the duplicate charge', body_html: '<p>We were charged twice; please refund one charge.</p>' },
    { title: 'Card declined', body_html: '<p>The card was declined at checkout.</p>' },
    { title: 'Invoice question', body_html: '<p>The invoice shows a refund we never asked for, and the charge is wrong.</p>' },
    { title: 'Login loop', body_html: '<p>SSO sends us back to the login page.</p>' },
  ];

  it('scores with BM25 summed over title and description, title counting double', async () => {
    const words = (text: string) => (text.toLowerCase().match(/[a-z]+/g) ?? []).map((word) => stemmer(word));
    const fields = docs.map((doc) => ({ title: words(doc.title), description: words(htmlToText(doc.body_html)) }));
    const average = (field: 'title' | 'description') => fields.reduce((sum, doc) => sum + doc[field].length, 0) / fields.length;
    const expected = (index: number, terms: string[]) =>
      terms.reduce((sum, term) => {
        let score = 0;
        for (const field of ['title', 'description'] as const) {
          const tf = fields[index]![field].filter((word) => word === term).length;
          if (!tf) continue;
          const having = fields.filter((doc) => doc[field].includes(term)).length;
          score += FIELD_WEIGHTS[field] * bm25(tf, having, fields.length, fields[index]![field].length, average(field));
        }
        return sum + score;
      }, 0);

    const ranked = await rankIssues(docs, parseQuery('refund charge'));
    expect(ranked.map((entry) => docs.indexOf(entry.issue))).toEqual([0, 2]);
    for (const entry of ranked) expect(entry.score).toBeCloseTo(expected(docs.indexOf(entry.issue), ['refund', 'charg']), 10);
  });

  it('matches word stems: billing finds billed and bills', async () => {
    const issues: Doc[] = [
      { title: 'Billed twice', body_html: '<p>x</p>' },
      { title: 'Two bills arrived', body_html: '<p>x</p>' },
      { title: 'Billing address', body_html: '<p>x</p>' },
      { title: 'Bell rings', body_html: '<p>x</p>' },
    ];
    const ranked = await rankIssues(issues, parseQuery('billing'));
    expect(ranked.map((entry) => entry.issue.title).sort()).toEqual(['Billed twice', 'Billing address', 'Two bills arrived']);
  });

  it('applies AND, OR, NOT and parentheses', async () => {
    const titles = async (query: string) => (await rankIssues(docs, parseQuery(query))).map((entry) => entry.issue.title).sort();
    expect(await titles('refund AND charge')).toEqual(['Invoice question', 'Refund the duplicate charge']);
    expect(await titles('refund NOT duplicate')).toEqual(['Invoice question']);
    expect(await titles('refund AND NOT invoice')).toEqual(['Refund the duplicate charge']);
    expect(await titles('card OR login')).toEqual(['Card declined', 'Login loop']);
    expect(await titles('(card OR login) AND page')).toEqual(['Login loop']);
    expect(await titles('NOT charge')).toEqual(['Card declined', 'Login loop']);
    expect(await titles('login OR NOT charge')).toEqual(['Card declined', 'Login loop']);
  });

  it('gives what a NOT excludes no part in the score', async () => {
    const plain = await rankIssues(docs, parseQuery('refund'));
    const without = await rankIssues(docs, parseQuery('refund NOT login'));
    expect(without.map((entry) => entry.score)).toEqual(plain.map((entry) => entry.score));
    // A NOT-only query lists the issues lacking the word, all at score 0.
    expect((await rankIssues(docs, parseQuery('NOT refund'))).map((entry) => entry.score)).toEqual([0, 0]);
  });
});

describe('name confidence', () => {
  const people = ['Ada Lovelace', 'Grace Hopper', 'Adam Smith', 'Jon Smith', 'John Smith', 'Zoë Müller'].map((name) => ({
    name,
    email: `${name.split(' ')[0]!.toLowerCase()}@example.test`,
  }));
  const best = async (query: string) => {
    const [top] = await matchNames(
      people,
      query,
      (person) => [person.name],
      (person) => [person.email],
    );
    return top && { name: top.item.name, confidence: Math.round(top.confidence * 1000) / 1000 };
  };

  it('is 1 for the name however it is cased, accented or ordered', async () => {
    expect(await best('ada lovelace')).toEqual({ name: 'Ada Lovelace', confidence: 1 });
    expect(await best('Lovelace, Ada')).toEqual({ name: 'Ada Lovelace', confidence: 1 });
    expect(await best('zoe muller')).toEqual({ name: 'Zoë Müller', confidence: 1 });
  });

  it('stays above 90 percent for one typo in a full name, and falls with what is missing', async () => {
    // Word by word: 'ada' is exact, 'lovelase' one edit in eight letters.
    expect((await best('Ada Lovelase'))!.confidence).toBeCloseTo((1 + 7 / 8) / 2, 3);
    expect(await best('Grace')).toEqual({ name: 'Grace Hopper', confidence: 0.5 });
    expect(await best('Ada')).toEqual({ name: 'Ada Lovelace', confidence: 0.5 });
  });

  it('compares email addresses only when the query is one', async () => {
    expect(await best('grace@example.test')).toEqual({ name: 'Grace Hopper', confidence: 1 });
    expect(
      (
        await matchNames(
          people,
          'xyzzy',
          (person) => [person.name],
          (person) => [person.email],
        )
      ).length,
    ).toBe(0);
  });
});

describe('acceptance', () => {
  it('measures the lead of the best score over the runner-up', () => {
    expect(scoreGap([10, 1])).toBeCloseTo(0.9);
    expect(scoreGap([7])).toBe(1);
    expect(scoreGap([])).toBe(0);
    expect(scoreGap([0, 0])).toBe(0);
  });

  it('accepts a search result only when asked to and its lead reaches the threshold', () => {
    expect(judgeScores([10, 1.4], true, 0.85)).toEqual({ accepted: true });
    expect(judgeScores([10, 1.6], true, 0.85)).toMatchObject({ accepted: false, reason: expect.stringMatching(/84% .* 85% is required/) });
    expect(judgeScores([10, 1.4], false, 0.85)).toMatchObject({ accepted: false, reason: expect.stringMatching(/auto_accept_matches is false/) });
    expect(judgeScores([10, 1.4], true, 0.9)).toMatchObject({ accepted: false });
  });

  it('accepts a name only when it alone reaches 90 percent', () => {
    expect(judgeConfidences([0.95, 0.5], true)).toEqual({ accepted: true });
    expect(judgeConfidences([0.9], true)).toEqual({ accepted: true });
    expect(judgeConfidences([0.89], true)).toMatchObject({ accepted: false, reason: expect.stringMatching(/89% confidence/) });
    expect(judgeConfidences([1, 0.9], true)).toMatchObject({ accepted: false, reason: expect.stringMatching(/Several candidates/) });
    expect(judgeConfidences([1], false)).toMatchObject({ accepted: false });
  });
});

describe('note bodies', () => {
  it('turns plain text into HTML that shows it as written', () => {
    expect(textToHtml('Refund <b>now</b> & "then"\nsecond line\n\n\nnext paragraph')).toBe(
      '<p>Refund &lt;b&gt;now&lt;/b&gt; &amp; &quot;then&quot;<br>second line</p><p>next paragraph</p>',
    );
    expect(htmlToText('<p>a&amp;b&#39;s&nbsp;<b>c</b></p><p>d</p>')).toBe("a&b's c d");
  });
});
