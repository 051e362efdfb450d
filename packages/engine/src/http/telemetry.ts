/**
 * Every request of an HTTP server (the engine's API, a worker) as OpenTelemetry sees it: a server span
 * that continues the caller's trace (W3C `traceparent`), named by the route template and never by the
 * filled path or the query; and its duration in `http.server.request.duration`. Where the server logs,
 * one line when it has answered (method, route, status, duration, request id, the API key's id, trace ids).
 */
import { durationHistogram, httpMethod, statusClass, telemetry } from '@quiver/core';
import type { Context, Span } from '@opentelemetry/api';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span and the context that holds it, while spans are recorded. */
    span?: { span: Span; context: Context };
  }
}

/** A request's series: method, status class and route template (none when no route served it). */
const requestDurations = durationHistogram(
  'http.server.request.duration',
  'Requests answered, by method, route template and status class.',
  ([method, status, route]) => ({ 'http.request.method': method!, 'http.response.status_class': status!, ...(route && { 'http.route': route }) }),
);

/** Adds the hooks; call before any other hook, so that a request refused early is seen too. */
export function observeRequests(app: FastifyInstance): void {
  const { tracer, api } = telemetry;
  if (tracer && api) {
    app.addHook('onRequest', (request, _reply, done) => {
      const parent = api.propagation.extract(api.ROOT_CONTEXT, request.headers);
      const route = request.routeOptions.url;
      const method = httpMethod(request.method);
      const span = tracer.startSpan(
        route ? `${method} ${route}` : method,
        {
          kind: api.SpanKind.SERVER,
          attributes: { 'http.request.method': method, 'url.scheme': request.protocol, ...(route && { 'http.route': route }) },
        },
        parent,
      );
      request.span = { span, context: api.trace.setSpan(parent, span) };
      api.context.with(request.span.context, done);
    });
    // Made active again for the handler: reading the body happens in callbacks of the socket's, not ours.
    app.addHook('preHandler', (request, _reply, done) => {
      if (request.span) api.context.with(request.span.context, done);
      else done();
    });
  }
  if (!tracer && !requestDurations()) return;
  app.addHook('onResponse', (request, reply, done) => {
    // The raw status: an MCP request's reply is hijacked and written by the transport.
    const status = reply.raw.statusCode;
    const route = request.routeOptions.url;
    const method = httpMethod(request.method);
    const span = request.span?.span;
    if (span) {
      span.setAttribute('http.response.status_code', status);
      if (request.apiKeyId) span.setAttribute('quiver.api_key.id', request.apiKeyId);
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: api!.SpanStatusCode.ERROR });
      }
      span.end();
    }
    requestDurations()?.record(reply.elapsedTime / 1000, [method, statusClass(status), route ?? '']);
    done();
  });
}

/**
 * Fastify's request lines: one a request, once it is answered (Fastify writes one on arrival and one at
 * the end), with what an operator filters by. The request is logged through the `req` serializer, which
 * leaves out headers and the values of granting parameters (app.ts, loggedRequest).
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  // The request line says 404 itself.
  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const ids = request.span?.span.spanContext();
    const line = {
      req: request,
      route: request.routeOptions.url,
      status: reply.raw.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(request.apiKeyId && { key_id: request.apiKeyId }),
      ...(ids && { trace_id: ids.traceId, span_id: ids.spanId }),
    };
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else request.log.info(line, 'request completed');
  }
}
