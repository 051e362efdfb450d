/**
 * What tool definitions cost in a model's context: tokens (o200k_base, the encoding of the GPT-4o and
 * later OpenAI models) of each tool as a server lists it, per toolkit, and of the whole `tools/list`
 * with every tool and in discovery mode. Other vendors' tokenizers differ by some percent; the
 * proportions hold.
 *
 * The counts are of what the model reads. An MCP definition also carries two display fields, `title` and
 * `icons`, which clients show to the person beside the tool and do not pass to the model (they turn a tool into
 * the provider's `{name, description, input_schema}`, as the other formats here are): counting them would hold
 * the lean-definition target to text no model sees. So they are left out of every count (`withoutDisplayFields`),
 * and reported apart: the titles' own tokens, and what titles and icons add to `tools/list` on the wire.
 */
import { geminiSchema, openAiStrictSchema, withoutDisplayFields, type McpToolDefinition, type ServingPolicy, type Tool } from '@quiver/core';
import { metaTools } from '@quiver/engine/mcp';
import { UsageError } from './usage-error.js';

export type TokenFormat = 'mcp' | 'openai' | 'openai-strict' | 'anthropic' | 'gemini';
export const tokenFormats: TokenFormat[] = ['mcp', 'openai', 'openai-strict', 'anthropic', 'gemini'];

export interface TokenReport {
  format: TokenFormat;
  tools: Array<{ name: string; toolkit: string; tokens: number }>;
  /** One tool's definition at the median and at the 90th percentile (nearest rank). */
  perTool: { median: number; p90: number };
  toolkits: Array<{ name: string; tools: number; tokens: number }>;
  /** The whole listing: MCP's `tools/list` result, or the provider's `tools` array. */
  listing: { all: number; discovery: number };
  /** MCP only: the display fields, which the counts above leave out. */
  display?: DisplayCost;
}

export interface DisplayCost {
  /** Tokens the tools' titles would add, were they read: in all, and for the median tool of those that have one. */
  titles: { tools: number; tokens: number; median: number };
  /** `tools/list` of every offered tool as sent, in bytes of compact JSON, and what its titles and its icons add to it. */
  bytes: { listing: number; titles: number; icons: number; iconsAs: 'url' | 'data URI' | 'none' };
}

type Definition = Pick<McpToolDefinition, 'name' | 'description' | 'inputSchema'> & { title?: string; icons?: unknown; annotations?: object };

/** A served MCP definition in the shape each format sends, as the model reads it. */
function shaped(definition: Definition, format: TokenFormat): unknown {
  const { name, description, inputSchema } = definition;
  if (format === 'openai') return { type: 'function', function: { name, description, parameters: inputSchema } };
  if (format === 'openai-strict') return { type: 'function', function: { name, description, parameters: openAiStrictSchema(inputSchema), strict: true } };
  if (format === 'anthropic') return { name, description, input_schema: inputSchema };
  if (format === 'gemini') return { name, description, parameters: geminiSchema(inputSchema) };
  return withoutDisplayFields(definition);
}

const listing = (definitions: unknown[], format: TokenFormat) => JSON.stringify(format === 'mcp' ? { tools: definitions } : definitions);

/** Token counts of the tools `policy` offers, listed as the server would. */
export async function tokenReport(tools: readonly Tool[], policy: ServingPolicy, format: TokenFormat): Promise<TokenReport> {
  const countTokens = await loadTokenizer();
  const offered = tools.filter((tool) => policy.offers(tool));
  const served = offered.map((tool) => policy.toMcpTool(tool));
  const definitions = served.map((definition) => shaped(definition, format));
  const rows = offered.map((tool, i) => ({
    name: `${tool.toolkit.name}.${tool.name}`,
    toolkit: tool.toolkit.name,
    tokens: countTokens(JSON.stringify(definitions[i])),
  }));
  const toolkits = new Map<string, { name: string; tools: number; tokens: number }>();
  for (const row of rows) {
    const sum = toolkits.get(row.toolkit) ?? { name: row.toolkit, tools: 0, tokens: 0 };
    sum.tools++;
    sum.tokens += row.tokens;
    toolkits.set(row.toolkit, sum);
  }
  const meta = metaTools(offered, policy.options.readOnly === true).map((definition) => shaped(definition, format));
  const sorted = rows.map((row) => row.tokens).sort((x, y) => x - y);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    format,
    tools: rows,
    perTool: { median: rank(0.5), p90: rank(0.9) },
    toolkits: [...toolkits.values()],
    listing: { all: countTokens(listing(definitions, format)), discovery: countTokens(listing(meta, format)) },
    ...(format === 'mcp' && { display: displayCost(served, policy, countTokens) }),
  };
}

/** What the display fields cost: each title's tokens (the definition with it, less the definition without), and their bytes. */
function displayCost(served: McpToolDefinition[], policy: ServingPolicy, countTokens: (text: string) => number): DisplayCost {
  const titled = served.filter((definition) => definition.title);
  const perTitle = titled
    .map((definition) => {
      const { icons: _icons, ...withTitle } = definition;
      return countTokens(JSON.stringify(withTitle)) - countTokens(JSON.stringify(withoutDisplayFields(definition)));
    })
    .sort((a, b) => a - b);
  const size = (definitions: object[]) => Buffer.byteLength(listing(definitions, 'mcp'));
  const sent = size(served);
  const untitled = size(served.map(({ title: _title, ...rest }) => rest));
  const plain = size(served.map(({ icons: _icons, ...rest }) => rest));
  const icons = served.some((definition) => definition.icons);
  return {
    titles: { tools: titled.length, tokens: perTitle.reduce((sum, n) => sum + n, 0), median: perTitle[Math.floor(perTitle.length / 2)] ?? 0 },
    bytes: {
      listing: sent,
      titles: sent - untitled,
      icons: sent - plain,
      iconsAs: !icons ? 'none' : policy.options.iconBaseUrl !== undefined ? 'url' : 'data URI',
    },
  };
}

/** One line per tool, then the toolkits, then the two listings. */
export function formatTokenReport(report: TokenReport): string {
  const n = (count: number) => count.toLocaleString('en');
  const width = Math.max(20, ...report.tools.map((row) => row.name.length), ...report.toolkits.map((row) => row.name.length));
  const lines = report.tools.map((row) => `${row.name.padEnd(width)}  ${n(row.tokens).padStart(9)}`);
  lines.push('', `${'toolkit'.padEnd(width)}  ${'tools'.padStart(6)}  ${'tokens'.padStart(9)}`);
  for (const row of report.toolkits) lines.push(`${row.name.padEnd(width)}  ${n(row.tools).padStart(6)}  ${n(row.tokens).padStart(9)}`);
  const name = report.format === 'mcp' ? 'tools/list' : report.format === 'gemini' ? 'gemini functionDeclarations' : `${report.format} tools array`;
  lines.push(
    '',
    `${name}, every tool (${n(report.tools.length)}): ${n(report.listing.all)} tokens`,
    `one tool's definition: ${n(report.perTool.median)} tokens at the median, ${n(report.perTool.p90)} at the 90th percentile`,
    `${name}, discovery mode (3 meta-tools): ${n(report.listing.discovery)} tokens`,
    `(o200k_base tokens of the compact JSON, ${report.format} format, as the model reads it${report.format === 'mcp' ? ': name, description, inputSchema, annotations; the display fields title and icons are left out' : ''})`,
  );
  const display = report.display;
  if (display) {
    const kb = (bytes: number) => `${(bytes / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} KB`;
    lines.push(
      `titles, for the person (not counted above): ${n(display.titles.tokens)} tokens over ${n(display.titles.tools)} tools, ${n(display.titles.median)} a tool at the median`,
      `tools/list as sent: ${kb(display.bytes.listing)}, of which titles ${kb(display.bytes.titles)} and icons ${kb(display.bytes.icons)} (${display.bytes.iconsAs})`,
    );
  }
  return lines.join('\n');
}

/**
 * The o200k tokenizer, loaded only here: its tables weigh 30 MB and nothing else needs them, so the installed
 * package leaves it out (a checkout has it).
 */
async function loadTokenizer(): Promise<(text: string) => number> {
  try {
    return (await import('gpt-tokenizer/encoding/o200k_base')).countTokens;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new UsageError(
      'counting tokens needs the gpt-tokenizer package beside quiver-engine: npm install gpt-tokenizer@4.0.0 (with -g for a global install)',
    );
  }
}
