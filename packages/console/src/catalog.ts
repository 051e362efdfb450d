/** The engine's tool index, fetched once per sign-in, and the tool search. */
import { api, query } from './api.js';

export interface ToolSummary {
  name: string;
  toolkit: string;
  summary: string;
  read_only: boolean;
  destructive: boolean;
  oauth_provider: string | null;
  secrets: string[];
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

/** The engine's ranked search: names, best first. */
export async function searchTools(text: string, toolkit?: string): Promise<string[]> {
  const answer = await api<{ items: { tool: { qualified_name: string } }[] }>('GET', `/tools/search${query({ q: text, toolkit, limit: 100 })}`);
  return answer.items.map((hit) => hit.tool.qualified_name);
}
