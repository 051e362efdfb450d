// A bare pass-through proxy, the floor under any engine that sits in front of an upstream: node:http in,
// undici out, nothing else (no routing, no validation, no credentials). Run as its own process, as the
// engine is; prints {"url": ...} once it listens. The upstream is the first argument.
import { createServer } from 'node:http';
import { Agent, request } from 'undici';

const upstream = process.argv[2];
const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });

const server = createServer(async (incoming, outgoing) => {
  const chunks = [];
  for await (const chunk of incoming) chunks.push(chunk);
  const answer = await request(`${upstream}${incoming.url}`, {
    method: incoming.method,
    headers: { authorization: incoming.headers.authorization, ...(chunks.length && { 'content-type': incoming.headers['content-type'] }) },
    body: chunks.length ? Buffer.concat(chunks) : undefined,
    dispatcher: agent,
  });
  const body = Buffer.from(await answer.body.arrayBuffer());
  outgoing.writeHead(answer.statusCode, { 'content-type': answer.headers['content-type'] ?? 'application/json', 'content-length': body.length });
  outgoing.end(body);
});

server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
