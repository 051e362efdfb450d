/**
 * The entries MCP clients want in their configuration files to reach Quiver: over stdio, the command that
 * starts `quiver mcp` (what `quiver mcp --print-config` prints); over HTTP, the engine's MCP URL (what the
 * console's "Connect a client" page shows). One source for both, so that they cannot drift apart.
 */

/** The clients whose configuration files have a shape of their own. */
export const mcpClientNames = ['claude', 'cursor', 'vscode'] as const;
export type McpClientName = (typeof mcpClientNames)[number];

/** The command a client runs to start a server, and the arguments before the server's own. */
export interface Launcher {
  command: string;
  args: string[];
}

/**
 * A server the client starts itself, speaking over standard input and output. Claude Desktop
 * (claude_desktop_config.json), Claude Code (.mcp.json) and Cursor (mcp.json) take `mcpServers`; VS Code
 * (.vscode/mcp.json) takes `servers` with a type.
 */
export function stdioClientConfig(client: McpClientName, mcpArgs: string[], launcher: Launcher): object {
  const server = { command: launcher.command, args: [...launcher.args, 'mcp', ...mcpArgs] };
  if (client === 'vscode') return { servers: { quiver: { type: 'stdio', ...server } } };
  return { mcpServers: { quiver: server } };
}

/**
 * A server the client reaches over streamable HTTP at `url`. Without headers the client signs its person in
 * through the engine's authorization server; with them it sends what they say (an API key, the acting user).
 * Claude Code (.mcp.json) wants `type: "http"` beside the URL, Cursor (mcp.json) the URL alone, VS Code
 * (.vscode/mcp.json) `servers` with `type: "http"`; any other client (`undefined`) gets the URL and headers
 * bare, which is what every client asks for in a shape of its own.
 */
export function httpClientConfig(client: McpClientName | undefined, url: string, headers?: Record<string, string>): object {
  const server = { url, ...(headers && { headers }) };
  switch (client) {
    case 'claude':
      return { mcpServers: { quiver: { type: 'http', ...server } } };
    case 'cursor':
      return { mcpServers: { quiver: server } };
    case 'vscode':
      return { servers: { quiver: { type: 'http', ...server } } };
    default:
      return server;
  }
}
