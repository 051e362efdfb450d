/** The audit trail (admin): every administrative change, newest first, with filters. */
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, type AuditFilter } from '../../audit.js';
import type { Routes } from '../app.js';
import { pageOf, pageQuery, type PageRequest } from '../pagination.js';

const nullableString = { type: ['string', 'null'] } as const;

const auditEvent = {
  type: 'object',
  required: ['id', 'occurred_at', 'action', 'target', 'actor', 'client_address', 'request_id', 'change'],
  properties: {
    id: { type: 'string' },
    occurred_at: { type: 'string' },
    action: { type: 'string', enum: [...AUDIT_ACTIONS] },
    target: { type: 'object', properties: { type: { type: 'string' }, id: nullableString } },
    actor: {
      type: 'object',
      description: 'An API key (with its role), or the command line (`cli`, named by its system user and host).',
      properties: {
        type: { type: 'string', enum: ['api_key', 'cli'] },
        key_id: nullableString,
        key_prefix: nullableString,
        name: nullableString,
        role: { type: ['string', 'null'], enum: ['admin', 'service', 'user', null] },
      },
    },
    client_address: { ...nullableString, description: 'The client address of the request (behind QUIVER_TRUSTED_PROXIES, the one they forward for).' },
    request_id: nullableString,
    change: { type: 'object', additionalProperties: true, description: 'What changed; a secret only as set or removed, never its value.' },
  },
} as const;

export const auditRoutes: Routes = (app, engine) => {
  app.get<{ Querystring: PageRequest & AuditFilter }>(
    '/v1/admin/audit',
    {
      schema: {
        operationId: 'audit-events-list',
        summary: 'The audit trail: administrative changes, newest first',
        querystring: {
          type: 'object',
          properties: {
            ...pageQuery,
            action: { type: 'string', enum: [...AUDIT_ACTIONS], description: 'Only this action.' },
            target_type: { type: 'string', enum: AUDIT_TARGET_TYPES, description: 'Only changes of this kind of thing.' },
            target_id: { type: 'string', description: 'Only changes of the thing with this id or name.' },
            actor_key_id: { type: 'string', description: 'Only changes made with this API key.' },
            since: { type: 'string', format: 'date-time', description: 'Only events at or after (RFC 3339).' },
            until: { type: 'string', format: 'date-time', description: 'Only events before (RFC 3339).' },
          },
        },
        response: { 200: pageOf(auditEvent) },
      },
    },
    async (request) => {
      const { limit, offset, ...filter } = request.query;
      const { items, total_count } = await engine.audit.list(filter, limit, offset);
      return { items, limit, offset, page_count: items.length, total_count };
    },
  );
};
