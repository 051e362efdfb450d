/** Scheduled executions: a page of them, and one with its input and attempts. */
import { serviceRoles } from '../access.js';
import type { Routes } from '../app.js';
import { notFound } from '../../errors.js';
import { pageQuery, type PageRequest } from '../pagination.js';

export const scheduledRoutes: Routes = (app, engine) => {
  app.get<{ Querystring: PageRequest }>(
    '/v1/scheduled_tools',
    {
      config: serviceRoles,
      schema: {
        operationId: 'tool-scheduled-list',
        summary: 'List scheduled executions, newest first',
        querystring: { type: 'object', properties: pageQuery },
      },
    },
    async (request) => engine.scheduler.list(request.query.limit, request.query.offset),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/scheduled_tools/:id',
    {
      config: serviceRoles,
      schema: {
        operationId: 'tool-scheduled-get',
        summary: 'One scheduled execution with its input and attempts',
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      },
    },
    async (request) => {
      const execution = await engine.scheduler.get(request.params.id);
      if (!execution) throw notFound(`scheduled execution ${request.params.id}`);
      return execution;
    },
  );
};
