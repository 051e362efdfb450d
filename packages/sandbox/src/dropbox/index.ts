export { startDropboxEmulator, type DropboxEmulator, type DropboxEmulatorOptions, type Metadata } from './emulator.js';
export { MAX_TOTAL_MATCHES } from './search.js';
export { seedDropboxDemo } from './demo.js';
