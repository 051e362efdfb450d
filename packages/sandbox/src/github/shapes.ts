/**
 * Building answers from samples: a stateful handler starts from the operation's sample (complete and
 * valid against the schema) and writes the state it holds over it. Writing only fields the sample
 * already has keeps the answer inside the schema's closed objects.
 */
import { API, WEB } from './common.js';

/** `sample` with each of `values` that the sample has a field for. */
export function overlay<T extends Record<string, any>>(sample: T, values: Record<string, unknown>): T {
  const out: Record<string, unknown> = { ...sample };
  for (const [key, value] of Object.entries(values)) if (key in out && value !== undefined) out[key] = value;
  return out as T;
}

/** The description's examples link to octocat/Hello-World; these links go to `fullName` instead. */
export function relink<T>(value: T, fullName: string): T {
  const text = JSON.stringify(value)
    .replaceAll('https://api.github.com/repos/octocat/Hello-World', `${API}/repos/${fullName}`)
    .replaceAll('https://github.com/octocat/Hello-World', `${WEB}/${fullName}`);
  return JSON.parse(text) as T;
}
