/**
 * The sandbox a command runs on: started for the command alone, or the one a running `quiver sandbox`
 * announced in the data directory, so that what one `quiver call --sandbox` creates the next one sees.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './config.js';
import type { LoadedToolkit } from './toolkit-paths.js';

/** What a command needs of a sandbox: where each toolkit's emulator is and the credentials they accept. */
export interface SandboxHandle {
  baseUrls: Record<string, string>;
  token: string;
  secrets: Record<string, string>;
  close(): Promise<void>;
}

interface Announcement {
  pid: number;
  baseUrls: Record<string, string>;
  token: string;
  secrets: Record<string, string>;
}

const announcementFile = (dataDir: string) => join(dataDir, 'sandbox.json');

/** Starts every emulator in this process. */
export async function startLocalSandbox(): Promise<SandboxHandle> {
  const { startSandbox } = await import('@quiver/sandbox');
  return startSandbox();
}

/**
 * The sandbox with an emulator for each loaded toolkit that holds an OpenAPI document (an imported one), built
 * from that document and accepting the sandbox's token under every scheme it declares: the toolkit points at it,
 * and its tools' credential secrets are set to what it accepts. Started in this process even when the sandbox
 * is a running `quiver sandbox`'s, and closed with the command.
 */
export async function withToolkitEmulators(sandbox: SandboxHandle, loaded: readonly LoadedToolkit[]): Promise<SandboxHandle> {
  const documented = loaded.filter((each) => each.openapi);
  if (!documented.length) return sandbox;
  const { startOpenApiEmulator, DEFAULT_BASIC_USER } = await import('@quiver/sandbox');
  const { credentialSecrets } = await import('@quiver/openapi');
  const started: Array<{ close(): Promise<void> }> = [];
  const baseUrls: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  const closeStarted = () => Promise.all(started.map((emulator) => emulator.close()));
  for (const { toolkit, openapi, given } of documented) {
    try {
      const emulator = await startOpenApiEmulator({ document: openapi!, credentials: sandbox.token });
      started.push(emulator);
      baseUrls[toolkit.name] = emulator.url;
      Object.assign(secrets, credentialSecrets(toolkit.tools, sandbox.token, DEFAULT_BASIC_USER));
    } catch (error) {
      await closeStarted();
      throw new UsageError(`toolkit path ${given}: the sandbox cannot emulate ${openapi}: ${(error as Error).message}`);
    }
  }
  return {
    baseUrls: { ...sandbox.baseUrls, ...baseUrls },
    token: sandbox.token,
    secrets: { ...sandbox.secrets, ...secrets },
    close: async () => {
      await closeStarted();
      await sandbox.close();
    },
  };
}

/** Tells later commands where this process's sandbox is; returns the function that withdraws the announcement. */
export function announceSandbox(dataDir: string, sandbox: SandboxHandle): () => void {
  const { baseUrls, token, secrets } = sandbox;
  const file = announcementFile(dataDir);
  const announcement: Announcement = { pid: process.pid, baseUrls, token, secrets };
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
  return { ...announcement, close: async () => {} };
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
