/** The Chromium the browser suites drive: Debian's, which `.ci/run` installs, or the one `QUIVER_CHROMIUM` names. */
import { existsSync } from 'node:fs';

export const chromiumPath = process.env.QUIVER_CHROMIUM ?? '/usr/bin/chromium';
export const haveChromium = existsSync(chromiumPath);

/** Headless, and quiet: no first-run pages, updates, sync or other traffic beyond the pages a test opens. */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
