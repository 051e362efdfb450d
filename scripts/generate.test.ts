import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDir, staleFiles } from './generate.js';

// The reference material sits beside the checkout on development machines and in CI, not on a user's machine.
const haveShared = existsSync(sharedDir);
if (!haveShared) console.warn(`generated catalogs: regeneration check skipped, the reference material is not at ${sharedDir}`);

describe.skipIf(!haveShared)('generated catalogs', () => {
  it('regenerating changes nothing', () => {
    expect(staleFiles()).toEqual([]);
  }, 120_000);
});
