// The types of `#mcp-client`, the SDK's client bundled at build (scripts/build-dist.mjs), sharing the server's core and zod.
export * from '@modelcontextprotocol/client';
