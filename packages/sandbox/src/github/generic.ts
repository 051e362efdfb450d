/**
 * The answer of every operation without state behind it: its success status with the operation's
 * sample, and the identifying path value echoed into the field it obviously names (GET
 * /orgs/acme answers `login: "acme"`), kept only when the body still fits the schema.
 */
import type { Operation } from '../emulator/operations.js';
import type { GithubRequest, GithubResponse } from './context.js';
import type { Samples } from './samples.js';

/** The last path parameter names the resource; these are the fields it goes into. */
const ECHOES: Record<string, (value: string, params: Record<string, string>) => Record<string, unknown>> = {
  repo: (value, params) => ({ name: value, full_name: `${params.owner}/${value}` }),
  username: (value) => ({ login: value }),
  org: (value) => ({ login: value }),
  team_slug: (value) => ({ slug: value }),
  gist_id: (value) => ({ id: value }),
  name: (value) => ({ name: value }),
  tag: (value) => ({ tag_name: value }),
  branch: (value) => ({ name: value }),
  environment_name: (value) => ({ name: value }),
  secret_name: (value) => ({ name: value }),
  key: (value) => ({ key: value }),
};

function echoes(operation: Operation, params: Record<string, string>): Record<string, unknown> {
  const last = [...operation.path.matchAll(/\{([^}]+)\}/g)].at(-1)?.[1];
  if (!last) return {};
  const value = params[last] ?? '';
  if (ECHOES[last]) return ECHOES[last](value, params);
  if (/(^|_)number$/.test(last) && /^\d+$/.test(value)) return { number: Number(value) };
  if (/_id$/.test(last) && /^\d+$/.test(value)) return { id: Number(value) };
  return {};
}

export function genericAnswer(samples: Samples, operation: Operation, req: GithubRequest): GithubResponse {
  const status = operation.successStatus;
  // Redirects (archive and log downloads) point somewhere; their target is not part of the API.
  if (status >= 300) return { status, headers: { location: `https://ghes.example/download/${req.operation}` } };
  const body = samples.sample(req.operation, status);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { status, body };
  const echoed = { ...body };
  for (const [field, value] of Object.entries(echoes(operation, req.params))) {
    if (field in echoed && typeof echoed[field] === typeof value) echoed[field] = value;
  }
  return { status, body: samples.conforms(req.operation, echoed, status) ? echoed : body };
}
