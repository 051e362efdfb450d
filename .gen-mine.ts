import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { sharedDir } from './scripts/generate.js';
import { generateDesign } from './scripts/generate/design.js';
import { figmaEmulator } from './scripts/generate/figma-emulator.js';
import { generateMailClient } from './scripts/generate/mail-client.js';
import { graphEmulator } from './scripts/generate/graph-emulator.js';
for (const g of [generateDesign, figmaEmulator, generateMailClient, graphEmulator]) for (const f of g(sharedDir)) { mkdirSync(dirname(resolve(f.path)), { recursive: true }); writeFileSync(resolve(f.path), f.content); console.log('wrote', f.path, f.content.length); }
