export { startFigmaEmulator, type FigmaEmulator, type FigmaEmulatorOptions } from './emulator.js';
export type { FigmaSeed, SeedFile, SeedLibraryItem } from './seed.js';
export type { FigmaNode } from './tree.js';
export { seedFigmaDemo } from './demo.js';
export { sampleDocument, sampleFile, samplePublications } from './samples.js';
