export { startHubspotEmulator, type HubspotEmulator, type HubspotEmulatorOptions, type FormSubmission } from './hubspot/index.js';
export { startGithubEmulator, type GithubEmulator, type GithubEmulatorOptions, type RateLimitSetting } from './github/index.js';
export { createClock, type Clock } from './emulator/clock.js';
export type { RecordedRequest } from './emulator/server.js';
export { startSandbox, sandboxToken, type Sandbox } from './sandbox.js';
export { formDefinition } from './hubspot/samples.js';
