/**
 * The sandbox a command runs on: started for the command alone, or the one a running `quiver sandbox`
 * announced in the data directory, so that what one `quiver call --sandbox` creates the next one sees.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '@quiver/sandbox';
import type { SandboxPorts } from './config.js';
import { UsageError } from './usage-error.js';
import type { LoadedToolkit } from './toolkit-paths.js';

/** A sandbox as a command holds it: the emulators and credentials of `Sandbox`, and what it knows of the imported toolkits'. */
export interface SandboxHandle extends Sandbox {
  /**
   * The imported toolkits it emulates, by name: the digest of the document (openapi.json) each emulator was
   * built from. A command that loads the same document uses that emulator rather than starting its own.
   */
  documents?: Record<string, string>;
  /** The fixed ports it was started on (`--sandbox-ports`): the imported toolkits' emulators take the ones after the built-in ones'. */
  ports?: SandboxPorts;
}

interface Announcement {
  pid: number;
  baseUrls: Record<string, string>;
  token: string;
  secrets: Record<string, string>;
  documents?: Record<string, string>;
}

const announcementFile = (dataDir: string) => join(dataDir, 'sandbox.json');

/**
 * Starts every emulator in this process: on consecutive ports from `ports.first` when given, with room left
 * for an emulator for each of the `loaded` toolkits that holds an OpenAPI document; else on ports the system picks.
 */
export async function startLocalSandbox(ports?: SandboxPorts, loaded: readonly LoadedToolkit[] = []): Promise<SandboxHandle> {
  const { startSandbox, SANDBOX_PORTS } = await import('@quiver/sandbox');
  if (!ports) return startSandbox();
  const needed = SANDBOX_PORTS + loaded.filter((each) => each.openapi).length;
  if (ports.first + needed - 1 > 65535) {
    throw new UsageError(
      `${ports.from} must leave room for the sandbox's ${needed} emulator ports below 65536: give a port from 1024 to ${65536 - needed}, not ${ports.first}`,
    );
  }
  const sandbox = await startSandbox({ firstPort: ports.first }).catch((error: unknown) => {
    throw portInUse(error, ports);
  });
  return { ...sandbox, ports };
}

/** An emulator's port in use, said plainly: which one, and which setting placed it there. */
function portInUse(error: unknown, ports: SandboxPorts): Error {
  const { code, port } = error as NodeJS.ErrnoException & { port?: number };
  if (code !== 'EADDRINUSE') return error as Error;
  return new Error(
    `the sandbox cannot listen on port ${port} (127.0.0.1): it is in use; ${ports.from} ${ports.first} places the emulators from there, choose another`,
  );
}

/**
 * The sandbox with an emulator for each loaded toolkit that holds an OpenAPI document (an imported one), built
 * from that document and accepting the sandbox's token under every scheme it declares: the toolkit points at it,
 * and its tools' credential secrets are set to what it accepts. A running `quiver sandbox` that emulates the
 * same document (it was given the toolkit too) lends its emulator, whose state then carries from command to
 * command; otherwise the emulator is started in this process, and closed with the command.
 */
export async function withToolkitEmulators(
  sandbox: SandboxHandle,
  loaded: readonly LoadedToolkit[],
  say: (text: string) => void = (text) => console.error(text),
): Promise<SandboxHandle> {
  const documented = loaded.filter((each) => each.openapi);
  if (!documented.length) return sandbox;
  const { startOpenApiEmulator, DEFAULT_BASIC_USER, SANDBOX_PORTS } = await import('@quiver/sandbox');
  const { credentialSecrets } = await import('@quiver/openapi');
  const started: Array<{ close(): Promise<void> }> = [];
  const baseUrls: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  const documents: Record<string, string> = {};
  const closeStarted = () => Promise.all(started.map((emulator) => emulator.close()));
  for (const [index, { toolkit, openapi, given }] of documented.entries()) {
    const digest = documentDigest(openapi!);
    documents[toolkit.name] = digest;
    Object.assign(secrets, credentialSecrets(toolkit.tools, sandbox.token, DEFAULT_BASIC_USER));
    const lent = sandbox.documents?.[toolkit.name] === digest ? sandbox.baseUrls[toolkit.name] : undefined;
    if (lent) {
      baseUrls[toolkit.name] = lent;
      continue;
    }
    // A running sandbox that does not emulate this document: the command's own emulator, its state the command's alone.
    if (sandbox.documents) {
      const why = sandbox.documents[toolkit.name] ? `emulates another document as ${toolkit.name}` : `does not emulate ${toolkit.name}`;
      say(`quiver: the running sandbox ${why} (give it the toolkit path): this command's own emulator serves ${toolkit.name}, its state ends with it`);
    }
    try {
      // With fixed ports, each documented toolkit's after the built-in emulators', in the order of the toolkit paths.
      const port = sandbox.ports && sandbox.ports.first + SANDBOX_PORTS + index;
      const emulator = await startOpenApiEmulator({ document: openapi!, credentials: sandbox.token, port });
      started.push(emulator);
      baseUrls[toolkit.name] = emulator.url;
    } catch (error) {
      await closeStarted();
      if (sandbox.ports && (error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw portInUse(error, sandbox.ports);
      throw new UsageError(`toolkit path ${given}: the sandbox cannot emulate ${openapi}: ${(error as Error).message}`);
    }
  }
  return {
    baseUrls: { ...sandbox.baseUrls, ...baseUrls },
    token: sandbox.token,
    secrets: { ...sandbox.secrets, ...secrets },
    documents: { ...sandbox.documents, ...documents },
    ports: sandbox.ports,
    close: async () => {
      await closeStarted();
      await sandbox.close();
    },
  };
}

/** Tells later commands where this process's sandbox is; returns the function that withdraws the announcement. */
export function announceSandbox(dataDir: string, sandbox: SandboxHandle): () => void {
  const { baseUrls, token, secrets, documents = {} } = sandbox;
  const file = announcementFile(dataDir);
  const announcement: Announcement = { pid: process.pid, baseUrls, token, secrets, documents };
  writeFileSync(file, `${JSON.stringify(announcement, null, 2)}\n`, { mode: 0o600 });
  // Only our own announcement: a later `quiver sandbox` may have replaced it.
  return () => {
    if (readAnnouncement(dataDir)?.pid === process.pid) rmSync(file, { force: true });
  };
}

function readAnnouncement(dataDir: string): Announcement | undefined {
  try {
    return JSON.parse(readFileSync(announcementFile(dataDir), 'utf8')) as Announcement;
  } catch {
    return undefined;
  }
}

/** The sandbox a running `quiver sandbox` announced, when its process is alive and its emulators answer. */
export async function runningSandbox(dataDir: string): Promise<(SandboxHandle & { pid: number }) | undefined> {
  const announcement = readAnnouncement(dataDir);
  if (!announcement || !alive(announcement.pid) || !(await answers(Object.values(announcement.baseUrls)[0]))) return undefined;
  // The emulators belong to the `quiver sandbox` process: closing here only lets go of them.
  return { ...announcement, documents: announcement.documents ?? {}, close: async () => {} };
}

/** The digest of an OpenAPI document's file: which emulator serves which document. */
function documentDigest(file: string): string {
  return `sha256-${createHash('sha256').update(readFileSync(file)).digest('base64url')}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Any HTTP answer will do: the emulator is there. */
async function answers(url: string | undefined): Promise<boolean> {
  if (!url) return false;
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}
