/** The engine's tool index, fetched once per sign-in, and the tool search. */
import { useEffect, useState } from 'preact/hooks';
import { api, query } from './api.js';

export interface ToolSummary {
  name: string;
  toolkit: string;
  summary: string;
  read_only: boolean;
  destructive: boolean;
  oauth_provider: string | null;
  /** The secrets it cannot run without (optional settings apart). */
  secrets: string[];
  optional_secrets: string[];
  routed_to: string;
}

let index: Promise<ToolSummary[]> | undefined;

export function toolIndex(): Promise<ToolSummary[]> {
  index ??= api<{ items: ToolSummary[] }>('GET', '/tool_index').then(
    (answer) => answer.items.sort((a, b) => a.toolkit.localeCompare(b.toolkit) || a.name.localeCompare(b.name)),
    (error: unknown) => {
      index = undefined;
      throw error;
    },
  );
  return index;
}

/** Forget the index (after sign-out, or when workers change what is served). */
export const forgetToolIndex = (): void => {
  index = undefined;
};

/** How long typing pauses before a search is sent: a key every 200 ms (a steady typist) sends none until the end. */
const SEARCH_PAUSE_MS = 250;

/** How many hits a search shows: the best ones; the count says how many matched in all. */
export const SEARCH_SHOWN = 100;

/**
 * The engine's ranked search, names only (the index has the rest): the names of the best hits, best first,
 * and how many tools matched in all.
 */
async function searchTools(text: string, toolkit: string | undefined, signal: AbortSignal): Promise<{ names: string[]; total: number }> {
  const answer = await api<{ items: { name: string }[]; total_count: number }>(
    'GET',
    `/tools/search${query({ q: text, toolkit, limit: SEARCH_SHOWN, view: 'names' })}`,
    undefined,
    signal,
  );
  return { names: answer.items.map((hit) => hit.name), total: answer.total_count };
}

/** A search's answer: the text it was for, the names of its best hits, best first, and how many tools matched in all. */
export interface SearchAnswer {
  text: string;
  names: string[];
  total: number;
}

/**
 * Search as you type, within a toolkit if one is given: the engine ranks, once typing pauses, and a later
 * keystroke cancels a search still on its way. The last answer stays until the next one comes; no text, no answer.
 */
export function useSearch(text: string, toolkit?: string): { answer: SearchAnswer | undefined; error: unknown } {
  const [answer, setAnswer] = useState<SearchAnswer>();
  const [error, setError] = useState<unknown>();
  const wanted = text.trim();
  useEffect(() => {
    if (!wanted) return setAnswer(undefined);
    const superseded = new AbortController();
    const timer = setTimeout(() => {
      searchTools(wanted, toolkit, superseded.signal).then(
        (found) => {
          if (superseded.signal.aborted) return;
          setAnswer({ text: wanted, ...found });
          setError(undefined);
        },
        (failure: unknown) => superseded.signal.aborted || setError(failure),
      );
    }, SEARCH_PAUSE_MS);
    return () => {
      superseded.abort();
      clearTimeout(timer);
    };
  }, [wanted, toolkit]);
  return { answer, error };
}
