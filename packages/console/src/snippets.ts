/**
 * The playground's call written for elsewhere: a curl command, TypeScript with Arcade's client (which works
 * against the engine unchanged), and the MCP request. The key is never written out: the snippets read it
 * from QUIVER_API_KEY.
 */

export interface PlaygroundCall {
  tool_name: string;
  input: Record<string, unknown>;
  user_id?: string;
}

/** Text in single quotes for a POSIX shell: a quote inside closes, escapes and reopens. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export function asCurl(call: PlaygroundCall, origin: string): string {
  return [
    `curl -sS -X POST ${shellQuoted(`${origin}/v1/tools/execute`)}`,
    `  -H "Authorization: Bearer $QUIVER_API_KEY"`,
    `  -H 'Content-Type: application/json'`,
    `  --data ${shellQuoted(JSON.stringify(call))}`,
  ].join(' \\\n');
}

export function asArcadeJs(call: PlaygroundCall, origin: string): string {
  return [
    "import Arcade from '@arcadeai/arcadejs';",
    '',
    `const client = new Arcade({ apiKey: process.env.QUIVER_API_KEY, baseURL: ${JSON.stringify(origin)} });`,
    `const result = await client.tools.execute(${JSON.stringify(call, null, 2)});`,
    'console.log(result.output);',
  ].join('\n');
}

/**
 * The JSON-RPC request an MCP client sends to /v1/mcp. Over MCP the tool has its MCP name; the acting user
 * is not in the request but in the Quiver-User-ID header (the playground says so beside the button).
 */
export function asMcpCall(call: PlaygroundCall, mcpName: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: mcpName, arguments: call.input } }, null, 2);
}
