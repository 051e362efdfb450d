/** One tool call: validate, check requirements, build the request, send it, shape the result. */
import type { ToolContext } from './context.js';
import { toolError, type ToolError, type ToolResult } from './errors.js';
import { checkInput, inputSchema, withoutNulls } from './input.js';
import { nextPageArguments, nextPageNote } from './paging.js';
import { buildRequest, placeCredentials } from './request.js';
import type { HttpBinding } from './tool-data.js';
import { isModeDriven, qualifiedName, type Tool } from './tool.js';
import { MAX_NESTING_DEPTH, nestsDeeperThan, pointerToPath, validate } from './validation.js';

// Not async: the handler's or the upstream call's own promise is answered, not one more around it (every call
// comes through here). A throw still comes back as a rejected promise, as from an async function.
export function executeTool(tool: Tool, given: unknown, context: ToolContext): Promise<ToolResult> {
  try {
    const input = withoutNulls(inputSchema(tool), given);
    const invalid = checkInput(tool, input);
    if (invalid) return Promise.resolve(invalid);
    const args = input as Record<string, unknown>;

    if (isModeDriven(tool) && args.mode === 'get_request_schema') return Promise.resolve({ value: requestSchemaAnswer(tool) });

    const unmet = unmetRequirements(tool, context);
    if (unmet) return Promise.resolve(unmet);
    const scoped: ToolContext = { ...context, secrets: declaredSecrets(tool, context.secrets) };
    // The dispatcher keeps the credentials out of the result (redaction.ts), whichever source ran the tool.
    return tool.handler ? Promise.resolve(tool.handler(args, scoped)) : callUpstream(tool, args, scoped);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The default behaviour: the tool is its binding. A handler that has read a mode-driven body itself
 * (with parseRequestBody) and rewritten it passes the result as `requestBody`.
 */
export async function callUpstream(tool: Tool, args: Record<string, unknown>, context: ToolContext, requestBody?: { body: unknown }): Promise<ToolResult> {
  if (!isBound(tool)) return toolError('TOOL_RUNTIME_FATAL', `${qualifiedName(tool)} has neither an upstream binding nor a handler.`);
  const http = tool.http;
  let body: unknown;
  if (isModeDriven(tool)) {
    const parsed = requestBody ?? parseRequestBody(tool, args);
    if ('error' in parsed) return parsed;
    body = parsed.body;
  }
  const baseUrl = (http.baseUrlSecret && context.secrets[http.baseUrlSecret]) || context.baseUrl;
  const request = buildRequest(tool, args, baseUrl, body);
  if ('error' in request) return request;
  if (context.token) request.headers.authorization = `Bearer ${context.token}`;
  if (http.auth) placeCredentials(request, http.auth, context.secrets);
  const outcome = await context.client.send(request, context.toolkit, context.cancelled);
  if ('error' in outcome) return outcome;
  const { status, headers, body: value } = outcome.response;
  // Redirects are not followed (the credential would go wherever the upstream points): the model hears where it led.
  const location = status >= 300 && typeof headers.location === 'string' ? headers.location : undefined;
  if (location !== undefined) return { value: { status, location, ...(value !== undefined && { body: value }) } };
  const next = nextPageArguments(tool, headers, args);
  // An empty success (204) still tells the model what happened.
  return { value: value === undefined ? { success: true, status } : value, ...(next && { next_page: next, note: nextPageNote(next) }) };
}

// A guard rather than a copy of the tool with its binding: every call comes through here.
const isBound = (tool: Tool): tool is Tool & { http: HttpBinding } => tool.http !== undefined;

function requestSchemaAnswer(tool: Tool) {
  const placed = tool.parameters.filter((p) => p.in === 'path' || p.in === 'query').map((p) => p.name);
  return {
    request_body_schema: tool.requestBody!.schema,
    instructions:
      `Call ${qualifiedName(tool)} again with mode "execute" and request_body set to a JSON document, ` +
      'serialised as a string, that conforms to request_body_schema.' +
      (placed.length ? ` Also pass ${placed.join(', ')}.` : ''),
  };
}

/**
 * Mode-driven execute: path and query parameters become required, and request_body must parse and
 * conform to the schema. Each failure is a RETRY error telling the model exactly what to fix.
 */
export function parseRequestBody(tool: Tool, args: Record<string, unknown>): { body: unknown } | { error: ToolError } {
  const schema = tool.requestBody!.schema;
  const schemaText = `Request body schema:\n${JSON.stringify(schema)}`;
  const missing = tool.parameters.filter((p) => (p.in === 'path' || p.in === 'query') && args[p.name] === undefined);
  if (missing.length) {
    const names = missing.map((p) => p.name).join(', ');
    return retry(`Missing ${names}: required when mode is "execute".`, `Pass ${names} together with request_body.`);
  }
  const text = args.request_body;
  if (typeof text !== 'string' || !text.trim()) {
    return retry('request_body is required when mode is "execute".', `Write a JSON document that conforms to the schema.\n${schemaText}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    return retry(`request_body is not valid JSON: ${(cause as Error).message}.`, `Send request_body as a JSON document serialised to a string.\n${schemaText}`);
  }
  if (nestsDeeperThan(body)) {
    return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `request_body nests deeper than ${MAX_NESTING_DEPTH} levels; no request body of this API does.`);
  }
  const issues = validate(schema, body);
  if (issues.length) {
    const lines = issues.map((item) => `${item.pointer || '/'} (${pointerToPath(item.pointer) || 'the body'}) ${item.message}`);
    return retry(`request_body does not match the schema: ${lines.join('; ')}.`, `Fix these JSON pointers: ${lines.join('; ')}.\n${schemaText}`);
  }
  return { body };
}

const retry = (message: string, additional: string) => toolError('TOOL_RUNTIME_RETRY', message, { additional_prompt_content: additional });

function unmetRequirements(tool: Tool, context: ToolContext): ToolResult | undefined {
  if (tool.requirements.oauth2 && !context.token) return { error: missingToken(tool) };
  const missing = unsetSecrets(tool, context.secrets);
  return missing.length ? { error: missingSecrets(tool, missing) } : undefined;
}

/** The keys of the secrets a tool needs that `secrets` lacks. */
export const unsetSecrets = (tool: Tool, secrets: Readonly<Record<string, string | undefined>>): string[] =>
  (tool.requirements.secrets ?? []).filter((secret) => !secret.optional && !secrets[secret.key]).map((secret) => secret.key);

/** The error of a call whose tool needs secrets it was not given, with `hint`, how the caller supplies them, where the caller knows it. */
export function missingSecrets(tool: Tool, keys: readonly string[], hint?: string): ToolError {
  return toolError('TOOL_REQUIREMENTS_NOT_MET', `${qualifiedName(tool)} needs the secret(s): ${keys.join(', ')}.${hint ? ` ${hint}` : ''}`).error;
}

/**
 * The error of a call whose tool needs an OAuth token and has none: the provider and the scopes (or that none in
 * particular are needed), then `hint`, how the caller supplies one, where the caller knows it (the command line
 * names its flag and variable; the engine gets tokens through its authorization flow and refuses before this).
 */
export function missingToken(tool: Tool, hint?: string): ToolError {
  const { provider, scopes } = tool.requirements.oauth2!;
  const needs = scopes.length ? `with scopes: ${scopes.join(', ')}` : '(no particular scopes)';
  return toolError('TOOL_REQUIREMENTS_NOT_MET', `${qualifiedName(tool)} needs a ${provider} OAuth token ${needs}.${hint ? ` ${hint}` : ''}`, {
    developer_message: `No ${provider} token for this call; configure one or authorize the user.`,
  }).error;
}

/** Only the secrets the tool declares. */
export function declaredSecrets(tool: Tool, secrets: Record<string, string>): Record<string, string> {
  const declared = tool.requirements.secrets;
  // Most tools declare none: they share one empty record rather than making one on every call.
  if (!declared?.length) return NO_SECRETS;
  return Object.fromEntries(declared.filter(({ key }) => key in secrets).map(({ key }) => [key, secrets[key]!]));
}

const NO_SECRETS: Record<string, string> = Object.freeze({});
