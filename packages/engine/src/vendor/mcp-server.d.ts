// The types of `#mcp-server`, the SDK's server and stdio transport bundled into one module at build (scripts/build-dist.mjs).
export * from '@modelcontextprotocol/server';
export * from '@modelcontextprotocol/server/stdio';
