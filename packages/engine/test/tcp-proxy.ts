/**
 * A TCP proxy on loopback between an engine and its PostgreSQL, which a test cuts (connections ended,
 * new ones refused, as a stopped database does), makes hang (connections accepted and never answered, as a
 * partitioned network does), and opens again on the same port.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Ends every connection and refuses new ones, as a stopped database does. */
  cut(): void;
  /** Listens again on the same port, forwarding. */
  open(): Promise<void>;
  /** Ends every connection and accepts new ones that are never answered, as a partitioned network does. */
  hang(): void;
  /** Ends the connections left hanging. */
  release(): void;
  close(): void;
}

/** A TCP proxy to PostgreSQL that the test can cut or make hang. */
export async function startProxy(targetPort: number, targetHost: string): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let hanging = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket)).on('error', () => {});
  };
  const endAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  const handle = (client: Socket) => {
    track(client);
    if (hanging) return;
    const upstream = connect(targetPort, targetHost);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  let server: Server = createServer(handle);
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  await listen(0);
  const port = (server.address() as { port: number }).port;
  return {
    port,
    cut() {
      server.close();
      endAll();
    },
    async open() {
      hanging = false;
      server = createServer(handle);
      await listen(port);
    },
    hang() {
      hanging = true;
      endAll();
    },
    release: endAll,
    close() {
      server.close();
      endAll();
    },
  };
}

/** A proxy in front of the PostgreSQL that a database URL names, and the same URL through it. */
export async function proxied(database: string): Promise<{ proxy: TcpProxy; url: string }> {
  const url = new URL(database);
  const proxy = await startProxy(Number(url.port || 5432), url.hostname);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { proxy, url: url.toString() };
}
