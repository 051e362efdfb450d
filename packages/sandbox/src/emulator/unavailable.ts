/**
 * Stands in for an emulator that could not start: every request gets 503 with the reason, so the
 * toolkit's calls fail saying why instead of reaching the real upstream or hanging.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UnavailableEmulator {
  url: string;
  close(): Promise<void>;
}

export async function startUnavailableEmulator(service: string, reason: string): Promise<UnavailableEmulator> {
  const message = `the ${service} emulator is not running in this sandbox: ${reason}`;
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ message }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
