export { startCustomerioEmulator, type CustomerioEmulator, type CustomerioEmulatorOptions } from './emulator.js';
export type { PersonView, WorkspaceView } from './view.js';
export type { Credentials, Region, Workspace } from './workspaces.js';
export { regionUrls } from './workspaces.js';
