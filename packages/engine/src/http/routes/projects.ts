/**
 * Projects. The engine is one project, its own (id "default"). The spec's project routes take a user's
 * JWT; this engine issues none, so the bearer value they accept is an engine API key, checked like on
 * every other route.
 */
import { anyRole } from '../access.js';
import type { Routes } from '../app.js';
import { notFound } from '../../errors.js';
import { page, pageOf, pageQuery, type PageRequest } from '../pagination.js';

const projectSchema = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'string' }, name: { type: 'string' } },
} as const;

const auth = 'Authorization: Bearer <API key> (the JWT of the spec; this engine issues no user JWTs).';

export const projectRoutes: Routes = (app, engine) => {
  const project = { id: 'default', name: engine.config.projectName };

  app.get<{ Querystring: PageRequest }>(
    '/v1/projects',
    {
      config: anyRole,
      schema: {
        operationId: 'list-projects',
        summary: "The projects the caller can access: the engine's one project",
        description: auth,
        querystring: { type: 'object', properties: pageQuery },
        response: { 200: pageOf(projectSchema) },
      },
    },
    async (request) => page([project], request.query),
  );

  app.get<{ Params: { project_id: string } }>(
    '/v1/projects/:project_id',
    {
      config: anyRole,
      schema: {
        operationId: 'get-project',
        summary: 'One project',
        description: auth,
        params: { type: 'object', required: ['project_id'], properties: { project_id: { type: 'string' } } },
        response: { 200: projectSchema },
      },
    },
    async (request) => {
      if (request.params.project_id !== project.id) throw notFound(`project ${request.params.project_id}`);
      return project;
    },
  );
};
