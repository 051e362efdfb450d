/**
 * Administrative changes over HTTP reach the audit trail through one hook. Each administrative route
 * declares its action beside its other settings (`config: { audit: 'worker.updated' }`); its handler, once
 * the change has succeeded, notes the target and what changed (`audited`); the hook writes the event before
 * the answer leaves, with the acting key, the client address and the request id. Answers other than 2xx
 * record nothing.
 *
 * Two guards: a route under /v1/admin or /v1/workers that may change something (any method but GET and
 * HEAD) and declares no action (nor `audit: false`) stops the engine at start, so a new route is not left
 * out by mistake; and whatever a handler notes, the request body's write-only values (`writeOnly` in the
 * route's body schema: a secret's value, a client secret, a worker's secret, MCP header values) are
 * replaced by `[redacted]` in the change.
 */
import type { FastifyInstance, FastifyRequest, onSendAsyncHookHandler } from 'fastify';
import type { AuditAction, AuditActor } from '../audit.js';
import type { Engine } from '../engine.js';
import type { ApiKeyIdentity } from '../security/api-keys.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The action a successful request of this route records; false for a route that changes nothing. */
    audit?: AuditAction | false;
  }
  interface FastifyRequest {
    auditNote?: { target: string | null; change: Record<string, unknown> };
  }
}

/** Notes what the request changed, for the route's audit event: the target's id or name, and the change without secret values. */
export function audited(request: FastifyRequest, target: string | null, change: Record<string, unknown> = {}): void {
  request.auditNote = { target, change };
}

/** Whether a secret field was given a value, removed (an empty value), or left alone (undefined). */
export const secretChange = (value: string | undefined): 'set' | 'removed' | undefined => (value === undefined ? undefined : value ? 'set' : 'removed');

/** What differs between two views of a thing, path by path: `{"http.uri": {from, to}}` (views hold no secret value). */
export function differences(before: object, after: object): Record<string, { from: unknown; to: unknown }> {
  const [was, is] = [flat(before), flat(after)];
  const changed: Record<string, { from: unknown; to: unknown }> = {};
  for (const path of new Set([...Object.keys(was), ...Object.keys(is)])) {
    if (JSON.stringify(was[path]) !== JSON.stringify(is[path])) changed[path] = { from: was[path] ?? null, to: is[path] ?? null };
  }
  return changed;
}

function flat(value: object, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [name, item] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (item && typeof item === 'object' && !Array.isArray(item)) flat(item, path, out);
    else if (item !== undefined) out[path] = item;
  }
  return out;
}

const administrative = /^\/v1\/(admin|workers)(\/|$)/;

export function installAudit(app: FastifyInstance, engine: Engine): void {
  const record: onSendAsyncHookHandler = async (request, reply, payload) => {
    const action = request.routeOptions.config?.audit;
    if (!action || reply.statusCode < 200 || reply.statusCode >= 300) return payload;
    const note = request.auditNote;
    const secrets = writeOnlyValues((request.routeOptions.schema as { body?: unknown } | undefined)?.body, request.body);
    const entry = { action, target: note?.target ?? null, change: scrubbed(note?.change ?? {}, secrets) as Record<string, unknown> };
    try {
      const event = await engine.audit.record(entry, { actor: keyActor(request.caller!), client_address: request.ip, request_id: request.id });
      request.log.info({ audit: event }, 'audit event');
    } catch (error) {
      // The change has happened; its answer still goes out, and the log keeps what the trail could not.
      request.log.error({ err: error, audit: entry }, 'audit event not recorded');
    }
    return payload;
  };

  app.addHook('onRoute', (route) => {
    const changes = [route.method].flat().some((method) => method !== 'GET' && method !== 'HEAD');
    if (changes && administrative.test(route.url) && route.config?.audit === undefined) {
      throw new Error(`${[route.method].flat().join(',')} ${route.url} is administrative: declare the audit action it records (config.audit), or audit: false`);
    }
    // Only the routes that record carry the hook: the others (tool calls) pay nothing for it.
    if (route.config?.audit) route.onSend = [...[route.onSend ?? []].flat(), record];
  });
}

const keyActor = (key: ApiKeyIdentity): AuditActor => ({ type: 'api_key', key_id: key.id, key_prefix: key.prefix, name: key.name, role: key.role });

/** The non-empty strings of `value` that its schema marks write-only, at any depth (map values included). */
function writeOnlyValues(schema: unknown, value: unknown, found = new Set<string>()): Set<string> {
  if (!schema || typeof schema !== 'object') return found;
  const { writeOnly, properties, additionalProperties } = schema as {
    writeOnly?: boolean;
    properties?: Record<string, unknown>;
    additionalProperties?: unknown;
  };
  if (writeOnly && typeof value === 'string' && value) found.add(value);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [name, child] of Object.entries(value)) writeOnlyValues(properties?.[name] ?? additionalProperties, child, found);
  }
  return found;
}

/** The change with every string that holds one of the secrets replaced. */
function scrubbed(value: unknown, secrets: ReadonlySet<string>): unknown {
  if (!secrets.size) return value;
  if (typeof value === 'string') return [...secrets].some((secret) => value.includes(secret)) ? '[redacted]' : value;
  if (Array.isArray(value)) return value.map((item) => scrubbed(item, secrets));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, scrubbed(item, secrets)]));
  return value;
}
