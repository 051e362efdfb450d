/**
 * Where each toolkit's upstream is and which credentials it uses, from (highest first) command-line
 * flags, the environment, the config file, and the toolkit's defaults.
 *
 * Config file (quiver.config.json in the working directory, or the path in QUIVER_CONFIG):
 *   { "toolkits": { "CrmMarketingApi": { "baseUrl": "https://api.hubapi.com" } },
 *     "tokens":   { "hubspot": "<OAuth access token>" },
 *     "secrets":  { "SOME_KEY": "<value>" },
 *     "authProviders": [ { "id": "github", "client_id": "...", "client_secret": "..." } ] }
 * (authProviders are read by the engine, `quiver serve`; the rest by every command.)
 * Environment: QUIVER_BASE_URL_<TOOLKIT> (CrmMarketingApi -> CRM_MARKETING_API), QUIVER_TOKEN_<PROVIDER>
 * (QUIVER_TOKEN_HUBSPOT), and each secret under its own key (SOME_KEY).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Tool } from '@quiver/core';

export interface QuiverConfig {
  toolkits: Record<string, { baseUrl?: string }>;
  tokens: Record<string, string>;
  secrets: Record<string, string>;
}

export const emptyConfig = (): QuiverConfig => ({ toolkits: {}, tokens: {}, secrets: {} });

/** The config file in use: the one named, or quiver.config.json when it exists. */
export function configFile(path?: string): string | undefined {
  const file = resolve(path ?? process.env.QUIVER_CONFIG ?? 'quiver.config.json');
  if (existsSync(file)) return file;
  if (path ?? process.env.QUIVER_CONFIG) throw new UsageError(`config file not found: ${file}`);
  return undefined;
}

export function loadConfigFile(path?: string): QuiverConfig {
  const file = configFile(path);
  if (!file) return emptyConfig();
  let parsed: Partial<QuiverConfig>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<QuiverConfig>;
  } catch (cause) {
    throw new UsageError(`config file ${file} is not valid JSON: ${(cause as Error).message}`);
  }
  return { toolkits: parsed.toolkits ?? {}, tokens: parsed.tokens ?? {}, secrets: parsed.secrets ?? {} };
}

/** Later layers win, key by key. */
export function mergeConfig(...layers: QuiverConfig[]): QuiverConfig {
  const out = emptyConfig();
  for (const layer of layers) {
    for (const [name, settings] of Object.entries(layer.toolkits)) out.toolkits[name] = { ...out.toolkits[name], ...settings };
    Object.assign(out.tokens, layer.tokens);
    Object.assign(out.secrets, layer.secrets);
  }
  return out;
}

/** CrmMarketingApi -> CRM_MARKETING_API */
export const envName = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

export function configFromEnv(env: NodeJS.ProcessEnv, tools: readonly Tool[]): QuiverConfig {
  const config = emptyConfig();
  for (const tool of tools) {
    const baseUrl = env[`QUIVER_BASE_URL_${envName(tool.toolkit.name)}`];
    if (baseUrl) config.toolkits[tool.toolkit.name] = { baseUrl };
    const provider = tool.requirements.oauth2?.provider;
    const token = provider && env[`QUIVER_TOKEN_${envName(provider)}`];
    if (provider && token) config.tokens[provider] = token;
    for (const { key } of tool.requirements.secrets ?? []) if (env[key]) config.secrets[key] = env[key]!;
  }
  return config;
}

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {}
