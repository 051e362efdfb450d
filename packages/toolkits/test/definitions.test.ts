/**
 * What every built-in tool's definition says, as a server lists it: `fields` only where the answer has fields to
 * pick, mode-driven tools' URL parameters marked as needed for execute, and descriptions that neither say their
 * first sentence twice nor reach their length through a stock sentence.
 */
import { isAscii } from 'node:buffer';
import { readdirSync, readFileSync } from 'node:fs';
import { ServingPolicy, type JsonSchema, type Tool } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
import { describe, expect, it } from 'vitest';

const tools = toolkits.flatMap((toolkit) => toolkit.tools.map((tool) => ({ tool, name: `${toolkit.name}.${tool.name}` })));
const policy = new ServingPolicy();
const offersFields = (tool: Tool) => 'fields' in (policy.inputSchema(tool).properties as Record<string, JsonSchema>);

/** An answer with nothing to pick: text or a number, or told as nothing, no content, an empty object, a 202 or a redirect. */
const answersNothingToPick = (tool: Tool) =>
  ['string', 'number', 'integer', 'boolean'].includes(tool.output.schema?.type as string) ||
  (/\b(nothing|no (content|body)|empty JSON object|returns no data|success and the HTTP status|Accepted \(202\)|redirect \(302\))/i.test(
    tool.output.description,
  ) &&
    !/\botherwise\b/.test(tool.output.description));

describe('the fields parameter', () => {
  it('is offered exactly where the answer has fields', () => {
    const withoutFields = tools.filter(({ tool }) => answersNothingToPick(tool));
    expect(withoutFields.length).toBeGreaterThan(200);
    expect(withoutFields.filter(({ tool }) => offersFields(tool)).map(({ name }) => name)).toEqual([]);
    const withFields = tools.filter(({ tool }) => !answersNothingToPick(tool));
    expect(withFields.filter(({ tool }) => !offersFields(tool)).map(({ name, tool }) => `${name}: ${tool.output.description}`)).toEqual([]);
  });

  it('is kept for an answer that is sometimes empty and sometimes not', () => {
    const partial = tools.find(({ name }) => name === 'CrmMarketingApi.DeleteMarketingEvents')!;
    expect(partial.tool.output.description).toMatch(/otherwise/);
    expect(offersFields(partial.tool)).toBe(true);
  });
});

describe('mode-driven tools', () => {
  it('say that execute needs their optional path parameters', () => {
    const modeDriven = tools.filter(({ tool }) => tool.requestBody);
    expect(modeDriven.length).toBeGreaterThan(80);
    const unsaid = modeDriven.flatMap(({ tool, name }) =>
      tool.parameters
        .filter((p) => p.in === 'path' && !p.required && !/Required for execute|Needed: it is part of the URL/.test(p.description))
        .map((p) => `${name}.${p.name}`),
    );
    expect(unsaid).toEqual([]);
  });
});

const stopWords = new Set(['the', 'and', 'for', 'with', 'from', 'into', 'that', 'this', 'your', 'all', 'are']);
/** The content words of a sentence after its verb, stemmed roughly ("Returns a webhook" and "Get the webhooks" share "webhook"). */
const wordsAfterVerb = (sentence: string) =>
  new Set(
    sentence
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word.length > 2 && !stopWords.has(word))
      .map((word) => word.replace(/(ies|es|s|ed|ing|e)$/, ''))
      .slice(1),
  );
const sentencesOf = (text: string) => text.split(/(?<=[.!?])\s+(?=[A-Z`"'(])/);

/** Most of its words are the first sentence's: said again in other words. */
function nearlyEqual(first: string, other: string): boolean {
  const a = wordsAfterVerb(first);
  const b = wordsAfterVerb(other);
  if (!a.size || !b.size) return false;
  const shared = [...a].filter((word) => b.has(word)).length;
  return shared / (a.size + b.size - shared) >= 0.6;
}

describe('tool descriptions', () => {
  it('never say their first sentence again', () => {
    const repeated = tools.flatMap(({ tool, name }) => {
      const [first = '', ...rest] = sentencesOf(tool.description);
      return rest.filter((sentence) => sentence === first || nearlyEqual(first, sentence)).map((sentence) => `${name}: ${first} / ${sentence}`);
    });
    expect(repeated).toEqual([]);
  });

  it('reach their length without a stock sentence', () => {
    // The sentences that once padded a summary of a few words: "Works on one repository.", "Works for the authenticated user."
    const stock = /(^|\. )(Works (on|for) [^.]*|Authenticated as the GitHub App itself)\./;
    expect(tools.filter(({ tool }) => stock.test(tool.description)).map(({ name, tool }) => `${name}: ${tool.description}`)).toEqual([]);
  });
});

describe('RepoHostApi descriptions', () => {
  const repoHost = tools.filter(({ name }) => name.startsWith('RepoHostApi.'));

  it('name every token scope a tool needs', () => {
    const scoped = repoHost.filter(({ tool }) => tool.requirements.oauth2?.scopes.length);
    expect(scoped.length).toBeGreaterThan(250);
    const unsaid = scoped.flatMap(({ tool, name }) =>
      tool.requirements.oauth2!.scopes.filter((scope) => !tool.description.includes(scope)).map((scope) => `${name}: ${scope}`),
    );
    expect(unsaid).toEqual([]);
  });

  it('name the role GitHub requires of the caller, with its alternatives', () => {
    const description = (name: string) => repoHost.find((entry) => entry.name === `RepoHostApi.${name}`)!.tool.description;
    expect(description('DeleteTeamInOrg')).toMatch(/Needs organization owner or team maintainer\.$/);
    expect(description('GetOrgAuditLog')).toMatch(/Needs organization owner, and the read:audit_log scope\.$/);
    expect(description('SetCheckSuitePreferences')).toMatch(/Needs admin access\.$/);
    // A role asked for to see part of the answer is no requirement of the call.
    expect(description('GetRepohostRepositoryDetails')).not.toMatch(/Needs admin access/);
  });
});

describe('the catalogs', () => {
  // Typographic quotes and ellipses become plain ones at generation: a catalog in ASCII is decoded as Latin-1 at
  // every start, and a listing in ASCII is a one-byte string, half the memory of one with a single curly quote.
  it('are ASCII throughout, and so is the listing', () => {
    const folder = new URL('../src/', import.meta.url);
    const catalogs = readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(catalogs.length).toBe(10);
    const wide = catalogs.filter((entry) => !isAscii(readFileSync(new URL(`${entry.name}/catalog.json`, folder)))).map((entry) => entry.name);
    expect(wide).toEqual([]);
    const listing = JSON.stringify(tools.map(({ tool }) => policy.toMcpTool(tool)));
    expect(isAscii(Buffer.from(listing))).toBe(true);
  });
});
