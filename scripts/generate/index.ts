import type { GeneratedFile } from '../generate.js';
import { generateCrmMarketing } from './crm-marketing.js';
import { hubspotEmulator } from './hubspot-emulator.js';
import { generateRepoHost } from './repo-host.js';
import { generateToolEngine } from './tool-engine.js';

/** One generator per generated artefact; each reads the reference material and returns file contents. */
export type Generator = (sharedDir: string) => GeneratedFile[];

export const generators: Generator[] = [generateCrmMarketing, hubspotEmulator, generateRepoHost, generateToolEngine];
