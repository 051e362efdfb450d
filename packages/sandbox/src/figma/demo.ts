/** The sandbox's Figma demo data: a team with one project and one design file that publishes a small library. */
import type { FigmaEmulator } from './emulator.js';
import { demoSeed } from './samples.js';

export function seedFigmaDemo(emulator: FigmaEmulator, token: string): void {
  emulator.seed(demoSeed(token));
}
