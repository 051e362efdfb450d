/**
 * `quiver sandbox`: the emulators in a process of their own, announced in the data directory until stopped:
 * the built-in toolkits' and, for each imported toolkit its toolkit paths load (a folder with openapi.json),
 * one built from its document.
 */
import type { Settings } from './config.js';
import { closeOnStop } from './lifecycle.js';
import { announceSandbox, startLocalSandbox, withToolkitEmulators } from './sandbox-session.js';

export async function runSandbox(settings: Settings): Promise<void> {
  const local = await startLocalSandbox(settings.sandboxPorts, settings.loadedToolkits);
  let sandbox: Awaited<ReturnType<typeof withToolkitEmulators>>;
  try {
    sandbox = await withToolkitEmulators(local, settings.loadedToolkits);
  } catch (error) {
    await local.close();
    throw error;
  }
  const withdraw = announceSandbox(settings.dataDir, sandbox);
  closeOnStop(async () => {
    withdraw();
    await sandbox.close();
  });
  for (const [toolkit, url] of Object.entries(sandbox.baseUrls)) console.log(`${toolkit.padEnd(16)} ${url}`);
  const imported = Object.keys(sandbox.documents ?? {});
  console.error('quiver: sandbox running; `quiver call --sandbox` uses it until you stop this (Ctrl-C)');
  if (imported.length) {
    console.error(
      `quiver: imported toolkits emulated from their documents: ${imported.join(', ')} (a call shares their emulators when it loads the same toolkit paths)`,
    );
  }
  console.error('quiver: its state lives in memory and ends with it');
  console.error(`quiver: token ${sandbox.token}; announced in ${settings.dataDir}`);
}
