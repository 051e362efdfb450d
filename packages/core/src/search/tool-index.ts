/** The search index over tools: BM25+ (MiniSearch) over five fields of analysed terms, weighted per field. */
import MiniSearch from 'minisearch';
import type { Parameter, Tool } from '../tool.js';
import type { SearchHit, SearchOptions, ToolIndex } from './index.js';
import { terms } from './terms.js';
import { words } from './words.js';

/**
 * How much a match in each field counts. The name says what the tool does in a few words and the
 * description's first sentence says it in a few more; the rest of the description is mostly caveats
 * (scopes, permissions, limits). Parameters hint at the objects involved; the toolkit (its name and
 * description, the same on all its tools) mostly separates toolkits when a query names one.
 */
export const fieldWeights = { name: 4, summary: 1.5, description: 0.5, parameters: 0.2, toolkit: 0.5 } as const;

type Field = keyof typeof fieldWeights;
type Document = { id: number } & Record<Field, string>;

export function buildToolIndex(tools: readonly Tool[]): ToolIndex {
  const index = new MiniSearch<Document>({
    fields: Object.keys(fieldWeights),
    // Documents and queries arrive analysed (terms joined by spaces): the library only ranks.
    tokenize: (text) => text.split(' '),
    processTerm: (term) => term || null,
    // Prefixes catch what the stemmer leaves apart (contribut → contributor, usag → usage), at the library's reduced weight.
    searchOptions: { boost: fieldWeights, prefix: (term) => term.length >= 4 },
  });
  index.addAll(tools.map((tool, id) => documentOf(tool, id)));

  return {
    search(query: string, { limit, toolkit }: SearchOptions = {}): SearchHit[] {
      const wanted = toolkit?.toLowerCase();
      const results = index.search(analyse(query), {
        filter: wanted === undefined ? undefined : (result) => tools[result.id]!.toolkit.name.toLowerCase() === wanted,
      });
      return results.slice(0, limit).map((result) => ({ tool: tools[result.id]!, score: result.score }));
    },
  };
}

const analyse = (text: string): string => terms(words(text)).join(' ');

function documentOf(tool: Tool, id: number): Document {
  // A toolkit's own name inside its tool names (`CreateRepohostIssue` in RepoHostApi) says nothing about the tool.
  const brand = tool.toolkit.name.toLowerCase().replace(/api$/, '');
  const [summary = '', ...details] = tool.description.split(/(?<=\.)\s/);
  const body = (tool.requestBody?.schema.properties ?? {}) as Record<string, { description?: string }>;
  return {
    id,
    name: terms(words(tool.name).filter((word) => word !== brand)).join(' '),
    summary: analyse(summary),
    description: analyse(`${details.join(' ')} ${tool.output.description}`),
    parameters: analyse([...tool.parameters.filter(isOwnParameter).map(describe), ...Object.entries(body).map(([name, p]) => `${name} ${p.description ?? ''}`)].join(' ')),
    toolkit: analyse(`${tool.toolkit.name} ${tool.toolkit.description}`),
  };
}

/** `mode` and `request_body` read the same on every mode-driven tool; the request body's own properties are indexed instead. */
const isOwnParameter = (parameter: Parameter) => parameter.in !== undefined;
const describe = (parameter: Parameter) => `${parameter.name} ${parameter.description}`;
