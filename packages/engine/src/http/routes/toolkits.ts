/**
 * The toolkits' icons, which the tools served over MCP name by URL (`icons[].src`): `GET /v1/toolkits/{name}/icon.svg`,
 * with no key (a client shows them to its person without the engine's credentials) and cacheable. An SVG is a
 * document a browser runs script in when it is opened by itself, so besides being plain shapes (core's
 * `iconProblems`, which every built-in icon passes), an icon is served so that nothing in it could run or fetch:
 * a Content-Security-Policy that allows nothing and sandboxes the document, and `nosniff` so that it is never read
 * as anything but an image.
 */
import { createHash } from 'node:crypto';
import { iconMimeType } from '@quiver/core';
import type { Engine } from '../../engine.js';
import { notFound } from '../../errors.js';
import type { Routes } from '../app.js';

/** Where the icons are, under the engine's URL: `<public URL>/v1/toolkits/<Toolkit>/icon.svg`. */
export const toolkitIconsPath = '/v1/toolkits';

/** The `iconBaseUrl` of a serving policy whose tools name this engine's icons (core's ServingOptions). */
export const iconBaseUrl = (engine: Pick<Engine, 'publicUrl'>): string => `${engine.publicUrl()}${toolkitIconsPath}`;

/** No script, style, font, frame or fetch; sandboxed even when opened as a page. */
export const iconCsp = "default-src 'none'; sandbox";

/** A day: icons change only with a new release, and the ETag makes asking again cheap. */
const cacheControl = 'public, max-age=86400';

interface ServedIcon {
  body: Buffer;
  etag: string;
}

export const toolkitRoutes: Routes = (app, engine) => {
  const served = new Map<string, ServedIcon>();
  const prepared = (svg: string): ServedIcon => {
    let icon = served.get(svg);
    if (!icon) {
      const body = Buffer.from(svg, 'utf8');
      icon = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
      served.set(svg, icon);
    }
    return icon;
  };

  app.get<{ Params: { name: string } }>(
    `${toolkitIconsPath}/:name/icon.svg`,
    {
      config: { public: true },
      schema: {
        operationId: 'toolkit-icon',
        summary: "A toolkit's icon (SVG), as the MCP tools name it in icons; no key needed, cacheable",
        security: [],
        params: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]{0,63}$', description: 'The toolkit, e.g. RepoHostApi (any case).' } },
        },
        response: {
          200: { description: 'The icon.', content: { [iconMimeType]: { schema: { type: 'string' } } } },
          304: { description: 'Not modified since the ETag given in If-None-Match.', type: 'null' },
        },
      },
    },
    async (request, reply) => {
      const name = request.params.name.toLowerCase();
      const toolkit = (await engine.dispatcher.catalog.tools()).find((tool) => tool.toolkit.name.toLowerCase() === name && tool.toolkit.icon)?.toolkit;
      // The same answer for a toolkit this engine does not serve and one without an icon: an unauthenticated caller
      // learns nothing of which toolkits (a worker's, say) are served.
      if (!toolkit?.icon) throw notFound(`toolkit ${request.params.name}`, ' No toolkit of this engine by that name has an icon.');
      const icon = prepared(toolkit.icon);
      reply
        .header('content-security-policy', iconCsp)
        .header('x-content-type-options', 'nosniff')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('cache-control', cacheControl)
        .header('etag', icon.etag);
      const asked = request.headers['if-none-match']?.split(',') ?? [];
      if (asked.some((tag) => tag.trim().replace(/^W\//, '') === icon.etag)) return reply.status(304).send();
      return reply.type(iconMimeType).send(icon.body);
    },
  );
};
