// The response budget against the real token count (o200k_base) on the sandbox's own responses: a
// result cut to the default budget of 20,000 estimated tokens uses at least 85 % of it and stays under
// the 25,000 real tokens that common clients accept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { capResult, defaultMaxResponseTokens, estimateTokens, type Tool } from '@quiver/core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listedToolkits, listingCatalog, openApp, type App } from '../src/app.js';
import { loadSettings } from '../src/config.js';

/** Read-only tools without required parameters whose sandbox answers differ in shape and density. */
const sampled = [
  'RepoHostApi.ListRepohostIssues',
  'RepoHostApi.ListUserRepositories',
  'RepoHostApi.ListUserNotifications',
  'RepoHostApi.ListUserMigrations',
  'RepoHostApi.ListRepohostEmojis',
  'RepoHostApi.ListRecentPublicGists',
  'CrmMarketingApi.ListCrmForms',
  'SupportDesk.ListIssues',
  'SupportDesk.ListContacts',
  'SupportDesk.ListUsers',
  'MailClient.ListEmails',
  'FileStore.ListItemsInFolder',
];

const catalog = listingCatalog();
let app: App;
const answers: Array<{ tool: Tool; value: unknown }> = [];

beforeAll(async () => {
  const settings = loadSettings({ dataDir: mkdtempSync(join(tmpdir(), 'quiver-budget-')) }, listedToolkits);
  app = await openApp({ settings, sandbox: true, serving: { maxResponseTokens: 0 } });
  for (const name of sampled) {
    const result = await app.dispatcher.call(name, {});
    const found = await catalog.resolve(name);
    if ('value' in result && found && 'tool' in found) answers.push({ tool: found.tool, value: result.value });
  }
}, 60_000);
afterAll(() => app?.close());

/** The answer made at least `tokens` long by repeating its list's items: real items, more of them. */
function grown(value: unknown, tokens: number): unknown {
  const listKey = Array.isArray(value) ? undefined : Object.entries(value as object).find(([, v]) => Array.isArray(v) && v.length > 0)?.[0];
  const items = (listKey === undefined ? value : (value as Record<string, unknown>)[listKey]) as unknown[];
  if (!Array.isArray(items) || !items.length) return value;
  const copies = Math.ceil(tokens / countTokens(JSON.stringify(items)));
  const many = Array.from({ length: copies }, () => items).flat();
  return listKey === undefined ? many : { ...(value as object), [listKey]: many };
}

describe('response budget calibration', () => {
  it('estimates within 0.8 to 1.2 of the real count on every sampled response', () => {
    expect(answers.length).toBe(sampled.length);
    for (const { tool, value } of answers) {
      const text = JSON.stringify(value);
      const ratio = estimateTokens(text) / countTokens(text);
      expect({ tool: tool.name, ok: ratio >= 0.8 && ratio <= 1.2 }).toEqual({ tool: tool.name, ok: true });
    }
  });

  it('cuts to at least 85 % of the default budget and under 25,000 real tokens', () => {
    let cut = 0;
    for (const { tool, value } of answers) {
      const big = grown(value, 2 * defaultMaxResponseTokens);
      if (countTokens(JSON.stringify(big)) <= defaultMaxResponseTokens) continue;
      const { value: kept, note } = capResult(big, tool, defaultMaxResponseTokens, true);
      expect(note).toMatch(/^\[Result cut:/);
      const real = countTokens(JSON.stringify(kept)) + countTokens(note!);
      expect({ tool: tool.name, real, enough: real >= 0.85 * defaultMaxResponseTokens, under: real < 25_000 }).toMatchObject({ enough: true, under: true });
      cut++;
    }
    expect(cut).toBeGreaterThanOrEqual(10);
  });
});
