// An OTLP/HTTP receiver that takes every export and keeps nothing: where the engine with telemetry on sends
// its spans and metrics during the benchmark, on loopback and in a process of its own (as a collector would
// be), so that receiving them costs the engine nothing it would not pay in production. Prints {"url": ...}
// once it listens; counts what it received, and prints that on SIGTERM.
import { createServer } from 'node:http';

const received = { posts: 0, bytes: 0 };
const server = createServer((request, response) => {
  request.on('data', (chunk) => (received.bytes += chunk.length));
  request.on('end', () => {
    received.posts++;
    const json = String(request.headers['content-type']).includes('json');
    response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : '');
  });
});

server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
process.on('SIGTERM', () => {
  process.stderr.write(`otlp sink: ${received.posts} exports, ${received.bytes} bytes\n`);
  server.close(() => process.exit(0));
});
