export { engineConfig, type EngineConfig } from './config.js';
export { openEngine, type Engine, type EngineOptions, type EngineBase } from './engine.js';
export { startEngine, allRoutes, type RunningEngine } from './server.js';
export { buildApp, type Routes } from './http/app.js';
export { createMcpServer, toCallToolResult, serverInfo, type CallTool } from './mcp/server.js';
export { sandboxCredentials, type Credentials, type AuthorizationResponse } from './auth/credentials.js';
export { createApiKey, listApiKeys, revokeApiKey, type ApiKeyInfo } from './security/api-keys.js';
export { openStore, type Store } from './store/db.js';
export { Vault, loadMasterKey } from './security/vault.js';
