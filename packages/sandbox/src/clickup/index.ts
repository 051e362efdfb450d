export { startClickupEmulator, type ClickupEmulator, type ClickupEmulatorOptions } from './emulator.js';
export { defaultStatuses, type SpaceOptions, type Status } from './workspace.js';
