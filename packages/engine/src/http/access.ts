/**
 * What each key may do. Routes say which roles they serve (`config.roles`); a route that says nothing is
 * for admin keys only, so a new route is closed until it is opened on purpose. A user key acts only as
 * its own user: naming anyone else (`user_id`, `Quiver-User-ID`) is refused with 403. ToolEngineApi,
 * whose tools administer the engine with the engine's own key, is served to admin keys only.
 */
import type { ServingPolicy } from '@quiver/core';
import type { FastifyRequest } from 'fastify';
import type { Engine } from '../engine.js';
import type { ApiKeyIdentity, Role } from '../security/api-keys.js';
import { forbidden } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The roles a route serves; admin only when absent. */
    roles?: readonly Role[];
  }
  interface FastifyRequest {
    /** The verified key of a non-public route. */
    caller?: ApiKeyIdentity;
  }
}

/** Every role: routes about tools and the caller's own user. */
export const anyRole = { roles: ['admin', 'service', 'user'] } as const;
/** Routes that act for any user or confirm who a user is: admin and service keys. */
export const serviceRoles = { roles: ['admin', 'service'] } as const;

/** The toolkits that administer the engine itself. */
export const ADMINISTRATION_TOOLKITS = ['ToolEngineApi'];

/** 403 unless the route serves the caller's role; `config`, the route's, where the caller has read it already. */
export function checkRole(request: FastifyRequest, config = request.routeOptions.config): void {
  const caller = request.caller!;
  const allowed = config?.roles ?? ['admin'];
  if (!allowed.includes(caller.role)) {
    throw forbidden(`This route is for ${allowed.join(' and ')} keys; this key (${caller.prefix}…) is a ${caller.role} key.`);
  }
}

/**
 * The user the request acts for: a user key's own user (whoever else it names is refused), otherwise
 * the user named, if any.
 */
export function actingUser(request: FastifyRequest, named: string | undefined): string | undefined {
  const caller = request.caller!;
  if (caller.role !== 'user') return named || undefined;
  if (named && named !== caller.user_id) {
    throw forbidden(`This key acts only as user '${caller.user_id}': it cannot act as '${named}'.`);
  }
  return caller.user_id!;
}

/** Each engine policy without the administration toolkits, made once rather than on every request of a non-admin key. */
const withoutAdministration = new WeakMap<ServingPolicy, ServingPolicy>();

/** What the caller is offered: the engine's policy, without the administration toolkits unless the key is an admin key. */
export function policyFor(engine: Engine, role: Role): ServingPolicy {
  if (role === 'admin') return engine.policy;
  let policy = withoutAdministration.get(engine.policy);
  if (!policy) {
    policy = engine.policy.narrowed({ excludeToolkits: [...(engine.policy.options.excludeToolkits ?? []), ...ADMINISTRATION_TOOLKITS] });
    withoutAdministration.set(engine.policy, policy);
  }
  return policy;
}
