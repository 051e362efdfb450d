/** "Did you mean" for a tool name that names no tool: a bare `CreateRepohostIssue`, a typo, the wrong separator. */
import { functionName } from '../formats.js';
import { qualifiedName, type Tool } from '../tool.js';

/**
 * Up to `limit` names of tools close to `name`, closest first, each as `nameOf` spells it (the
 * qualified `Toolkit.Tool` by default). A name is compared with each tool's bare, qualified and
 * function name, ignoring letter case; only names within about a third of their length in edits count.
 */
export function suggestToolNames(name: string, tools: readonly Tool[], limit = 3, nameOf: (tool: Tool) => string = qualifiedName): string[] {
  const wanted = name.split('@')[0]!.trim().toLowerCase();
  if (!wanted) return [];
  const scored: Array<{ tool: Tool; distance: number }> = [];
  for (const tool of tools) {
    const forms = [tool.name, qualifiedName(tool), functionName(tool)].map((form) => form.toLowerCase());
    const distance = Math.min(...forms.map((form) => editDistance(wanted, form)));
    if (distance <= Math.max(2, Math.floor(wanted.length / 3))) scored.push({ tool, distance });
  }
  return scored
    .sort((a, b) => a.distance - b.distance)
    .slice(0, limit)
    .map(({ tool }) => nameOf(tool));
}

/** " Did you mean A, B or C?" for an error message, or nothing when there is no suggestion. */
export function didYouMean(suggestions: readonly string[]): string {
  if (!suggestions.length) return '';
  const list = suggestions.length === 1 ? suggestions[0] : `${suggestions.slice(0, -1).join(', ')} or ${suggestions.at(-1)}`;
  return ` Did you mean ${list}?`;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
