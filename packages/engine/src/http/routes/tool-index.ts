/**
 * Every offered tool in one light answer (255 KB of JSON, 24 KB gzipped, for the 1,007 built-in tools): enough to list,
 * filter and choose, and where each call is routed. `GET /v1/tools/{name}` has the full definition.
 */
import { annotationsOf, qualifiedName } from '@quiver/core';
import { anyRole, policyFor } from '../access.js';
import type { Routes } from '../app.js';
import { sendCompressed } from '../compressed.js';

const summary = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    toolkit: { type: 'string' },
    summary: { type: 'string' },
    read_only: { type: 'boolean' },
    destructive: { type: 'boolean' },
    oauth_provider: { type: ['string', 'null'] },
    secrets: { type: 'array', items: { type: 'string' }, description: 'The secrets the tool cannot run without.' },
    optional_secrets: { type: 'array', items: { type: 'string' }, description: 'Settings the tool reads when set, with a default otherwise.' },
    routed_to: { type: 'string', description: "The source that runs the tool: 'builtin' or a worker's id." },
  },
} as const;

/** The first sentence: descriptions run long, and the list shows one line. */
function firstSentence(text: string): string {
  const match = /^[\s\S]*?[.!?](?=\s|$)/.exec(text);
  return (match?.[0] ?? text).slice(0, 200);
}

export const toolIndexRoutes: Routes = (app, engine) => {
  app.get(
    '/v1/tool_index',
    {
      config: anyRole,
      schema: {
        operationId: 'tools-index',
        summary: 'Every offered tool, briefly: toolkit, first sentence, annotations, requirements and where it is routed',
        response: { 200: { type: 'object', properties: { items: { type: 'array', items: summary }, total_count: { type: 'integer' } } } },
      },
    },
    async (request, reply) => {
      const items = [];
      // Where each call goes is the dispatcher's own answer, so the index cannot drift from execution.
      for (const { tool, source } of await engine.dispatcher.catalog.entries()) {
        if (!policyFor(engine, request.caller!.role).offers(tool)) continue;
        const annotations = annotationsOf(tool);
        items.push({
          name: qualifiedName(tool),
          toolkit: tool.toolkit.name,
          summary: firstSentence(tool.description),
          read_only: annotations.readOnlyHint === true,
          destructive: annotations.destructiveHint === true,
          oauth_provider: tool.requirements.oauth2?.provider ?? null,
          // "Needs secrets" means the required ones: an optional setting (GIT_SERVER_URL) needs nothing.
          secrets: (tool.requirements.secrets ?? []).filter((secret) => !secret.optional).map((secret) => secret.key),
          optional_secrets: (tool.requirements.secrets ?? []).filter((secret) => secret.optional).map((secret) => secret.key),
          routed_to: source.id,
        });
      }
      const answer = { items, total_count: items.length };
      // A quarter of a megabyte of JSON that compresses tenfold: the console's first page waits for it.
      return sendCompressed(request, reply, answer);
    },
  );
};
