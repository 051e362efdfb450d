/**
 * What tool definitions cost in a model's context: tokens (o200k_base, the encoding of the GPT-4o and
 * later OpenAI models) of each tool as a server lists it, per toolkit, and of the whole `tools/list`
 * with every tool and in discovery mode. Other vendors' tokenizers differ by some percent; the
 * proportions hold.
 */
import { geminiSchema, openAiStrictSchema, type McpToolDefinition, type ServingPolicy, type Tool } from '@quiver/core';
import { metaTools } from '@quiver/engine/mcp';
import { UsageError } from './config.js';

export type TokenFormat = 'mcp' | 'openai' | 'openai-strict' | 'anthropic' | 'gemini';
export const tokenFormats: TokenFormat[] = ['mcp', 'openai', 'openai-strict', 'anthropic', 'gemini'];

export interface TokenReport {
  format: TokenFormat;
  tools: Array<{ name: string; toolkit: string; tokens: number }>;
  toolkits: Array<{ name: string; tools: number; tokens: number }>;
  /** The whole listing: MCP's `tools/list` result, or the provider's `tools` array. */
  listing: { all: number; discovery: number };
}

type Definition = Pick<McpToolDefinition, 'name' | 'description' | 'inputSchema'>;

/** A served MCP definition in the shape each format sends. */
function shaped(definition: Definition, format: TokenFormat): unknown {
  const { name, description, inputSchema } = definition;
  if (format === 'openai') return { type: 'function', function: { name, description, parameters: inputSchema } };
  if (format === 'openai-strict') return { type: 'function', function: { name, description, parameters: openAiStrictSchema(inputSchema), strict: true } };
  if (format === 'anthropic') return { name, description, input_schema: inputSchema };
  if (format === 'gemini') return { name, description, parameters: geminiSchema(inputSchema) };
  return definition;
}

const listing = (definitions: unknown[], format: TokenFormat) => JSON.stringify(format === 'mcp' ? { tools: definitions } : definitions);

/** Token counts of the tools `policy` offers, listed as the server would. */
export async function tokenReport(tools: readonly Tool[], policy: ServingPolicy, format: TokenFormat): Promise<TokenReport> {
  const countTokens = await loadTokenizer();
  const offered = tools.filter((tool) => policy.offers(tool));
  const definitions = offered.map((tool) => shaped(policy.toMcpTool(tool), format));
  const perTool = offered.map((tool, i) => ({
    name: `${tool.toolkit.name}.${tool.name}`,
    toolkit: tool.toolkit.name,
    tokens: countTokens(JSON.stringify(definitions[i])),
  }));
  const toolkits = new Map<string, { name: string; tools: number; tokens: number }>();
  for (const row of perTool) {
    const sum = toolkits.get(row.toolkit) ?? { name: row.toolkit, tools: 0, tokens: 0 };
    sum.tools++;
    sum.tokens += row.tokens;
    toolkits.set(row.toolkit, sum);
  }
  const meta = metaTools(offered, policy.options.readOnly === true).map((definition) => shaped(definition, format));
  return {
    format,
    tools: perTool,
    toolkits: [...toolkits.values()],
    listing: { all: countTokens(listing(definitions, format)), discovery: countTokens(listing(meta, format)) },
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
    `${name}, discovery mode (3 meta-tools): ${n(report.listing.discovery)} tokens`,
    `(o200k_base tokens of the compact JSON, ${report.format} format)`,
  );
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
