/**
 * A support workspace for a new sandbox user to look at and change: ten support people in four teams,
 * sixty contacts, and a few hundred issues of the last six weeks across eight topics. The sandbox
 * token's service account is named so that WhoAmI says what it is.
 */
import type { PylonEmulator } from './emulator.js';
import { supportWorkspace } from './workspace.js';

export function seedPylonDemo(emulator: PylonEmulator, token: string): void {
  emulator.serviceAccountFor(token, 'Quiver sandbox API token');
  emulator.load(supportWorkspace({ recentIssues: 120, olderIssues: 20 }));
}
