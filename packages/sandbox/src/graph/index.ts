export { startGraphEmulator, type GraphEmulator, type GraphEmulatorOptions, type IncomingMessage } from './emulator.js';
export type { MailboxProfile } from './mailboxes.js';
export type { Message as GraphMessage } from './messages.js';
export { seedGraphDemo } from './demo.js';
