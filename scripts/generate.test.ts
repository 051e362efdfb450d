import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedDir, staleFiles } from './generate.js';
import { installDescriptions } from './generate/descriptions.js';

// The reference material sits beside the checkout on development machines and in CI, not on a user's machine.
const haveShared = existsSync(sharedDir);
if (!haveShared) console.warn(`generated catalogs: regeneration check skipped, the reference material is not at ${sharedDir}`);

describe.skipIf(!haveShared)('generated catalogs', () => {
  // The upstream description packages are not part of the checkout's install: the first run fetches them (about 900 MB).
  beforeAll(() => installDescriptions(), 900_000);

  it('regenerating changes nothing', () => {
    expect(staleFiles()).toEqual([]);
  }, 300_000);
});
