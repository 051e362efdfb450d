/** `quiver sandbox`: the emulators in a process of their own, announced in the data directory until stopped. */
import type { Settings } from './config.js';
import { closeOnStop } from './lifecycle.js';
import { announceSandbox, startLocalSandbox } from './sandbox-session.js';

export async function runSandbox(settings: Settings): Promise<void> {
  const sandbox = await startLocalSandbox();
  const withdraw = announceSandbox(settings.dataDir, sandbox);
  closeOnStop(async () => {
    withdraw();
    await sandbox.close();
  });
  for (const [toolkit, url] of Object.entries(sandbox.baseUrls)) console.log(`${toolkit.padEnd(16)} ${url}`);
  console.error('quiver: sandbox running; `quiver call --sandbox` uses it until you stop this (Ctrl-C)');
  console.error('quiver: its state lives in memory and ends with it');
  console.error(`quiver: token ${sandbox.token}; announced in ${settings.dataDir}`);
}
