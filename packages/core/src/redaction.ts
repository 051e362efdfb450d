/**
 * The one place credentials are kept out of what leaves a call: its value, its note and next page, its
 * error (messages, developer message, stack), whatever source ran it (the built-in toolkits, a worker, an MCP server).
 * The dispatcher applies it to every result, so MCP, the HTTP API, the scheduler's records and the
 * command line all see the same scrubbed result.
 */
import type { NextPage, ToolError, ToolResult } from './errors.js';
import type { Tool } from './tool.js';

/** What replaces a credential in any text. */
export const REDACTED = '[redacted]';

/** The credentials a call ran with. */
export interface CallSecrets {
  token?: string;
  secrets: Record<string, string>;
}

/**
 * Every form in which a credential of this call could come back: the token and secret values as they
 * are and URL-encoded, a Basic pair both joined (`user:password`) and base64-encoded, and the user
 * information of a secret that is an address (`https://user:password@host`: the password and the pair,
 * or the user name alone when it stands for a token). The rest of an address is a setting, not a
 * credential: results name a self-hosted server's URL legitimately.
 */
export function credentialForms(tool: Pick<Tool, 'http'>, credentials: CallSecrets): readonly string[] {
  const last = lastForms.get(tool);
  if (last && last.token === credentials.token && sameSecrets(last.secrets, credentials.secrets)) return last.forms;
  const forms = workOutForms(tool, credentials);
  lastForms.set(tool, { token: credentials.token, secrets: credentials.secrets, forms });
  return forms;
}

/**
 * Each tool's forms as last worked out, with the credentials they came from: a tool's calls mostly run with
 * the credentials of its previous call, and the forms are then the same array, whose redactor is made once.
 */
const lastForms = new WeakMap<object, CallSecrets & { forms: readonly string[] }>();

function sameSecrets(a: Record<string, string>, b: Record<string, string>): boolean {
  const names = Object.keys(b);
  return names.length === Object.keys(a).length && names.every((name) => a[name] === b[name]);
}

function workOutForms(tool: Pick<Tool, 'http'>, { token, secrets }: CallSecrets): string[] {
  const values: string[] = [];
  for (const value of [token, ...Object.values(secrets)]) {
    if (!value) continue;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) values.push(...userInformation(value));
    else values.push(value);
  }
  const auth = tool.http?.auth;
  for (const item of Array.isArray(auth) ? auth : auth ? [auth] : []) {
    if (!('secrets' in item)) continue;
    const [user, password] = item.secrets.map((key) => secrets[key]);
    if (user && password) values.push(`${user}:${password}`, Buffer.from(`${user}:${password}`).toString('base64'));
  }
  return values.flatMap((value) => [value, encodeURIComponent(value)]);
}

/** The secret parts of an address's user information, in each spelling they may come back in. */
function userInformation(address: string): string[] {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    // Not parseable as a URL, so nothing tells its parts apart: the whole value is the secret.
    return [address];
  }
  const { username, password } = url;
  if (!username && !password) return [];
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  // A user name alone is how many services take a token (`https://<token>@host`).
  const parts = password ? [password, `${username}:${password}`] : [username];
  return [...new Set(parts.flatMap((part) => [part, decode(part)]))];
}

/**
 * Replaces every occurrence of a credential in a text. Values shorter than four characters are left
 * alone: they would scrub ordinary words and carry no secret worth the name.
 */
export function redactor(credentials: readonly string[]): ((text: string) => string) | undefined {
  let scrub = redactors.get(credentials);
  if (scrub === undefined) {
    scrub = makeRedactor(credentials) ?? null;
    redactors.set(credentials, scrub);
  }
  return scrub ?? undefined;
}

/** Each list of credential forms' redactor (null: nothing to redact), made once for a list used again (credentialForms). */
const redactors = new WeakMap<readonly string[], ((text: string) => string) | null>();

function makeRedactor(credentials: readonly string[]): ((text: string) => string) | undefined {
  const values = [...new Set(credentials.filter((value) => value.length >= 4))].sort((a, b) => b.length - a.length);
  if (!values.length) return undefined;
  return (text) => (values.some((value) => text.includes(value)) ? values.reduce((out, value) => out.split(value).join(REDACTED), text) : text);
}

/** The result with every credential replaced: in the value's strings and keys, and in every text of an error. */
export function redactResult(result: ToolResult, credentials: readonly string[]): ToolResult {
  const scrub = redactor(credentials);
  if (!scrub) return result;
  if ('error' in result) return { error: redactError(result.error, scrub) };
  // Most results hold no credential: looked through without a copy, they are answered as they came.
  if (!holdsCredential(result.value, scrub) && !holdsCredential(result.note, scrub) && !holdsCredential(result.next_page, scrub)) return result;
  return {
    ...result,
    value: walk(result.value, scrub),
    ...(result.note !== undefined && { note: scrub(result.note) }),
    // The next page's arguments come from the upstream too (a Link header may carry a token).
    ...(result.next_page !== undefined && { next_page: walk(result.next_page, scrub) as NextPage }),
  };
}

/**
 * Words of a property name that say its value is a credential, matched on whole words of the name in any
 * case and spelling (`apiKey`, `API_KEY`, `x-api-key`), so that `author` or `max_tokens` stay.
 */
const CREDENTIAL_NAMES = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'api_key',
  'apikey',
  'private_key',
  'authorization',
  'auth',
  'credential',
  'credentials',
  'cookie',
];

/** Whether a property's name says its value is a credential (`client_secret`, `accessToken`, `X-API-Key`). */
function namesCredential(name: string): boolean {
  const words = `_${name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .join('_')}_`;
  return !POSITION_TOKENS.some((position) => words.endsWith(`_${position}_`)) && CREDENTIAL_NAMES.some((credential) => words.includes(`_${credential}_`));
}

/** Tokens that mark a place in a listing, not credentials: the input keeps them, to say which page was asked for. */
const POSITION_TOKENS = ['page_token', 'pagination_token', 'next_token', 'continuation_token', 'sync_token', 'cursor_token'];

/**
 * A call's input as it may be kept: every credential the call ran with replaced wherever it appears, and
 * the value of every property whose name says it is a credential (a password the caller passed, say).
 * Booleans and nulls stay: they hold no secret, and say what the caller chose.
 */
export function redactInput(input: unknown, credentials: readonly string[]): unknown {
  const scrub = redactor(credentials) ?? ((text: string) => text);
  return walk(input, scrub, (name, value) => namesCredential(name) && value !== null && typeof value !== 'boolean');
}

function redactError(error: ToolError, scrub: (text: string) => string): ToolError {
  const scrubbed = (text: string | undefined) => (text === undefined ? undefined : scrub(text));
  return {
    ...error,
    message: scrub(error.message),
    ...(error.developer_message !== undefined && { developer_message: scrubbed(error.developer_message) }),
    ...(error.additional_prompt_content !== undefined && { additional_prompt_content: scrubbed(error.additional_prompt_content) }),
    ...(error.stacktrace !== undefined && { stacktrace: scrubbed(error.stacktrace) }),
  };
}

/**
 * Walks without recursion: a worker's answer may nest as deep as it likes. A property `withheld` picks
 * is replaced by REDACTED whatever its value.
 */
function walk(value: unknown, scrub: (text: string) => string, withheld?: (name: string, value: unknown) => boolean): unknown {
  if (typeof value === 'string') return scrub(value);
  if (!value || typeof value !== 'object') return value;
  const root: { value: unknown } = { value: undefined };
  const pending: Array<[unknown, Record<string | number, unknown>, string | number]> = [[value, root as Record<string, unknown>, 'value']];
  while (pending.length) {
    const [node, parent, key] = pending.pop()!;
    if (typeof node === 'string') parent[key] = scrub(node);
    else if (Array.isArray(node)) {
      const copy: unknown[] = new Array(node.length);
      parent[key] = copy;
      for (const [index, item] of node.entries()) pending.push([item, copy as unknown as Record<number, unknown>, index]);
    } else if (node && typeof node === 'object') {
      const copy: Record<string, unknown> = {};
      parent[key] = copy;
      for (const [name, item] of Object.entries(node)) {
        // Defined first, in order (the walk fills them last to first), and as own data properties, so
        // that a key named `__proto__` stays a key.
        const scrubbed = scrub(name);
        if (scrubbed === '__proto__') Object.defineProperty(copy, scrubbed, { value: undefined, writable: true, enumerable: true, configurable: true });
        else copy[scrubbed] = undefined;
        if (withheld?.(name, item)) copy[scrubbed] = REDACTED;
        else pending.push([item, copy, scrubbed]);
      }
    } else parent[key] = node;
  }
  return root.value;
}

/** Whether `scrub` would change any string or property name in `value` (walked without recursion, like walk). */
function holdsCredential(value: unknown, scrub: (text: string) => string): boolean {
  const pending: unknown[] = [value];
  while (pending.length) {
    const node = pending.pop();
    if (typeof node === 'string') {
      if (scrub(node) !== node) return true;
    } else if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
    } else if (node && typeof node === 'object') {
      for (const [name, item] of Object.entries(node)) {
        if (scrub(name) !== name) return true;
        pending.push(item);
      }
    }
  }
  return false;
}
