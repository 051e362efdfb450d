import type { GeneratedFile } from '../generate.js';
import { generateCrmMarketing } from './crm-marketing.js';
import { hubspotEmulator } from './hubspot-emulator.js';
import { generateRepoHost } from './repo-host.js';
import { generateToolEngine } from './tool-engine.js';
import { generateDesign } from './design.js';
import { figmaEmulator } from './figma-emulator.js';
import { githubEmulator } from './github-emulator.js';
import { generateMailClient } from './mail-client.js';
import { graphEmulator } from './graph-emulator.js';
import { generateCommerce } from './commerce.js';
import { clickupEmulator } from './clickup-emulator.js';
import { generateFileStore } from './file-store.js';
import { generateTaskboard } from './taskboard.js';
import { generateSupportDesk } from './support-desk.js';
import { pylonEmulator } from './pylon-emulator.js';

import { generateTracking } from './tracking.js';
import { customerioEmulator } from './customerio-emulator.js';
import { generateSearchAssociations } from './search-associations.js';
/** One generator per generated artefact; each reads the reference material and returns file contents. */
export type Generator = (sharedDir: string) => GeneratedFile[];

export const generators: Generator[] = [
  generateCrmMarketing,
  hubspotEmulator,
  generateRepoHost,
  githubEmulator,
  generateToolEngine,
  generateTaskboard,
  clickupEmulator,
  generateFileStore,
  generateSupportDesk,
  pylonEmulator,
  generateTracking,
  customerioEmulator,
  generateCommerce,
  generateDesign,
  figmaEmulator,
  generateMailClient,
  graphEmulator,
  // Last: it reads the catalogs the generators above write.
  generateSearchAssociations,
];
