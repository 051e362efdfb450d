import { isAscii } from 'node:buffer';
import { existsSync, readFileSync } from 'node:fs';
import type { ToolkitData } from '@quiver/core';

/**
 * Reads a toolkit's generated catalog that sits beside the module that asks for it. The search phrases
 * written for its tools (`phrases.json` beside it: tool name → requests in everyday words) are read only
 * when a search index first asks for them, so that start-up does not pay for them.
 */
export function readCatalog(url: URL): ToolkitData {
  const data = readJson(url) as ToolkitData;
  const phrasesUrl = new URL('./phrases.json', url);
  if (!existsSync(phrasesUrl)) return data;
  let phrases: Record<string, string[]> | undefined;
  return {
    ...data,
    phrases: () => {
      if (phrases) return phrases;
      phrases = readJson(phrasesUrl) as Record<string, string[]>;
      const unknown = Object.keys(phrases).filter((name) => !data.tools.some((tool) => tool.name === name));
      if (unknown.length) throw new Error(`${data.name}: search phrases for unknown tools: ${unknown.join(', ')}`);
      return phrases;
    },
  };
}

/**
 * A catalog in ASCII throughout (every built-in one is, which a test holds) is decoded as Latin-1, the same text: V8 makes that string
 * several times faster than it decodes UTF-8, and the catalogs are read at every start.
 */
function readJson(url: URL): unknown {
  const bytes = readFileSync(url);
  return JSON.parse(bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8'));
}
