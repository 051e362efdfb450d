/**
 * How the long-running commands end: SIGINT and SIGTERM (and, for a stdio server, the end of its session,
 * through the `stop` returned) close what the command opened and exit 0; a close that hangs is cut short so the process is gone
 * within 5 s (after the engine's drain, when it has work in flight or a drain time is set: `drainMs`
 * covers it all). A second SIGINT or SIGTERM while closing exits at once, without waiting for the work in
 * flight, with the status a shell gives a process ended by that signal (130, 143). Errors at start-up end
 * the process at once, on one line of standard error.
 */
import { createServer } from 'node:net';
import { constants } from 'node:os';

const CLOSE_LIMIT_MS = 4_000;

export function closeOnStop(close: () => Promise<void>, { drainMs = 0 } = {}): () => void {
  let stopping = false;
  const signalled = (signal: NodeJS.Signals) => {
    if (!stopping) return stop();
    console.error(`quiver: ${signal} again while closing; exiting at once, without waiting for the work in flight`);
    process.exit(128 + constants.signals[signal]);
  };
  const stop = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      console.error(`quiver: not closed after ${(drainMs + CLOSE_LIMIT_MS) / 1000} s; exiting`);
      process.exit(1);
    }, drainMs + CLOSE_LIMIT_MS).unref();
    close()
      .then(() => flushed(process.stdout))
      .then(
        () => process.exit(0),
        (error: Error) => {
          console.error(`quiver: while closing: ${error.message}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', signalled);
  process.on('SIGTERM', signalled);
  return stop;
}

/**
 * Once what was written to `stream` has left: standard output to a pipe is written asynchronously, and exiting
 * before cuts an answer short (a client that sends its requests and closes its end at once gets the first 64 KB
 * of a tool listing). A stream that cannot be written to any more counts as flushed.
 */
const flushed = (stream: NodeJS.WriteStream): Promise<void> => new Promise((resolve) => stream.write('', () => resolve()));

/**
 * Fails at once when the port is taken, before the sandbox and the database are opened (seconds of work that a
 * taken port would waste); the real listen later reports the rare port taken in between the same way.
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => probe.once('error', reject).listen({ host, port, exclusive: true }, resolve));
  } catch (error) {
    throw listenError(error, host, port);
  }
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/** A failure to listen, said plainly: a port in use is a common mistake with a simple fix. */
export function listenError(error: unknown, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE') return new Error(`port ${port} on ${host} is already in use (another quiver? choose another with --port)`);
  if (code === 'EACCES') return new Error(`no permission to listen on ${host}:${port} (choose a port above 1023 with --port)`);
  if (code === 'EADDRNOTAVAIL') return new Error(`cannot listen on ${host}: no such local address (see --host)`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new Error(`cannot listen on ${host}: no such host name or address (see --host)`);
  return error as Error;
}

/** Ends the process on an error nothing caught, as a one-line message rather than a stack. */
export function exitOnUncaught(): void {
  const fail = (error: unknown) => {
    console.error(`quiver: ${(error as Error)?.message ?? String(error)}`);
    process.exit(1);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
}
