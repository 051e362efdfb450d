/**
 * The sandbox's authorization server, in the browser and at the token endpoint (public: the person
 * and the engine's OAuth client reach it without an API key). Registered only in the sandbox.
 */
import type { FastifyInstance } from 'fastify';
import type { Params } from '../../auth/sandbox-authorization.js';
import { escapeHtml } from '../html.js';
import type { Routes } from '../app.js';

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  '<style>body{font:16px system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem}button{font:inherit;padding:.4rem 1rem;margin-right:.5rem}</style>' +
  `</head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;

const contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

export const sandboxOAuthRoutes: Routes = async (app, engine) => {
  const sandbox = engine.sandbox;
  if (!sandbox) return;

  await app.register(async (scope: FastifyInstance) => {
    // OAuth speaks forms (RFC 6749 §4.1.3); only these routes parse them.
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    const hidden = { hide: true, security: [] } as const;

    scope.get<{ Querystring: Params }>(
      '/v1/sandbox/oauth/authorize',
      { config: { public: true }, schema: { ...hidden, operationId: 'sandbox-authorize' } },
      async (request, reply) => {
        const params = request.query;
        reply.header('content-security-policy', contentSecurityPolicy).header('cache-control', 'no-store').type('text/html; charset=utf-8');
        const problem = sandbox.check(params);
        // A request that cannot be trusted is not sent back anywhere (RFC 6749 §4.1.2.1): it is shown here.
        if (problem) return reply.status(400).send(page('Authorization request refused', `<p>${escapeHtml(problem)}.</p>`));
        const user = await engine.store.db.selectFrom('authorizations').select('user_id').where('state', '=', params.state!).executeTakeFirst();
        const fields = Object.entries(params)
          .filter(([, value]) => value !== undefined)
          .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value!)}">`)
          .join('');
        const scopes = params.scope
          ? params.scope
              .split(' ')
              .map((scopeName) => `<li><code>${escapeHtml(scopeName)}</code></li>`)
              .join('')
          : '<li>no particular scope</li>';
        return page(
          `Allow access to ${params.provider ?? 'the service'}?`,
          `<p>The Quiver engine asks to act${user ? ` for <strong>${escapeHtml(user.user_id)}</strong>` : ''} in the sandbox's ${escapeHtml(params.provider ?? 'service')} with:</p>` +
            `<ul>${scopes}</ul><form method="post" action="/v1/sandbox/oauth/authorize">${fields}` +
            '<button type="submit" name="decision" value="allow" autofocus>Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>' +
            '<p><small>This is the local sandbox: no real account is involved.</small></p>',
        );
      },
    );

    scope.post<{ Body: Params }>(
      '/v1/sandbox/oauth/authorize',
      { config: { public: true }, schema: { ...hidden, operationId: 'sandbox-authorize-decision' } },
      async (request, reply) => {
        const params = request.body ?? {};
        const problem = sandbox.check(params);
        if (problem) {
          reply.header('content-security-policy', contentSecurityPolicy).type('text/html; charset=utf-8');
          return reply.status(400).send(page('Authorization request refused', `<p>${escapeHtml(problem)}.</p>`));
        }
        return reply.redirect(sandbox.decide(params, params.decision === 'allow'), 303);
      },
    );

    scope.post<{ Body: Params }>(
      '/v1/sandbox/oauth/token',
      { config: { public: true }, schema: { ...hidden, operationId: 'sandbox-token' } },
      async (request, reply) => {
        const { status, body } = sandbox.exchange(request.body ?? {});
        return reply.status(status).header('cache-control', 'no-store').header('pragma', 'no-cache').send(body);
      },
    );
  });
};
