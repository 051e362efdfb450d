/**
 * JSON that compresses well, gzipped where the client accepts it: the answers a browser asks for again and
 * again (the console's tool index, its search as you type). Small answers are sent as they are.
 */
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Below this, gzip's own framing costs more than it saves. */
const WORTH_IT = 1_024;

export function sendCompressed(request: FastifyRequest, reply: FastifyReply, answer: unknown) {
  const text = JSON.stringify(answer);
  if (text.length < WORTH_IT || !/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
    return reply.header('vary', 'accept-encoding').type('application/json; charset=utf-8').send(text);
  }
  return reply.header('content-encoding', 'gzip').header('vary', 'accept-encoding').type('application/json; charset=utf-8').send(gzipSync(text));
}
