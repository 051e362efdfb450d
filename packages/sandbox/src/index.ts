export { startHubspotEmulator, type HubspotEmulator, type HubspotEmulatorOptions, type FormSubmission } from './hubspot/index.js';
export { startGithubEmulator, type GithubEmulator, type GithubEmulatorOptions, type SecondaryRateLimit } from './github/index.js';
export type { RateLimitSetting } from './emulator/rate-limit.js';
export { createClock, stillClock, type Clock } from './emulator/clock.js';
export type { RecordedRequest } from './emulator/server.js';
export type { Emulator, EmulatorOptions } from './emulator/define.js';
export { startSandbox, sandboxToken, SANDBOX_PORTS, type Sandbox, type SandboxOptions } from './sandbox.js';
export {
  startCustomerioEmulator,
  regionUrls,
  type CustomerioEmulator,
  type CustomerioEmulatorOptions,
  type PersonView,
  type WorkspaceView,
} from './customerio/index.js';
export { startClickupEmulator, type ClickupEmulator, type ClickupEmulatorOptions, type SpaceOptions } from './clickup/index.js';
export { startDropboxEmulator, seedDropboxDemo, MAX_TOTAL_MATCHES, type DropboxEmulator, type DropboxEmulatorOptions, type Metadata } from './dropbox/index.js';
export {
  startPylonEmulator,
  supportWorkspace,
  ISSUE_STATES,
  TEAM_PAGE_SIZE,
  type PylonEmulator,
  type PylonEmulatorOptions,
  type PylonIssue,
  type PylonUser,
  type PylonTeam,
  type PylonContact,
  type LoadedWorkspace,
  type IssueInput,
  type IssueState,
  type Workspace,
  type WorkspaceOptions,
} from './pylon/index.js';
export {
  startFigmaEmulator,
  seedFigmaDemo,
  sampleDocument,
  sampleFile,
  samplePublications,
  type FigmaEmulator,
  type FigmaEmulatorOptions,
  type FigmaSeed,
  type SeedFile,
  type SeedLibraryItem,
  type FigmaNode,
} from './figma/index.js';
export {
  startGraphEmulator,
  seedGraphDemo,
  type GraphEmulator,
  type GraphEmulatorOptions,
  type IncomingMessage,
  type MailboxProfile,
  type GraphMessage,
} from './graph/index.js';
export { formDefinition } from './hubspot/samples.js';
export {
  DEFAULT_BASIC_USER,
  startOpenApiEmulator,
  type OpenApiEmulator,
  type OpenApiEmulatorOptions,
  type OpenApiTools,
} from './openapi/index.js';
