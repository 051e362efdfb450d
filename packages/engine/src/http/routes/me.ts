/** Who the caller's key is: what a console shows and enables before it calls anything else. */
import type { Routes } from '../app.js';
import { anyRole } from '../access.js';

const meSchema = {
  type: 'object',
  required: ['role', 'key'],
  properties: {
    role: { type: 'string', enum: ['admin', 'service', 'user'] },
    user_id: { type: 'string', description: 'The user a user key acts as; absent for admin and service keys.' },
    key: { type: 'object', required: ['id', 'name', 'prefix'], properties: { id: { type: 'string' }, name: { type: 'string' }, prefix: { type: 'string' } } },
  },
} as const;

export const meRoutes: Routes = (app) => {
  app.get(
    '/v1/me',
    { config: anyRole, schema: { operationId: 'me', summary: "The caller's role, its user (user keys) and its key", response: { 200: meSchema } } },
    async (request) => {
      const { id, name, prefix, role, user_id } = request.caller!;
      return { role, ...(user_id !== null && { user_id }), key: { id, name, prefix } };
    },
  );
};
