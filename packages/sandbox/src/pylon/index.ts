export {
  startPylonEmulator,
  type LoadedWorkspace,
  type PylonContact,
  type PylonEmulator,
  type PylonEmulatorOptions,
  type PylonIssue,
  type PylonTeam,
  type PylonUser,
} from './emulator.js';
export { ISSUE_STATES, type IssueInput, type IssueState } from './issues.js';
export { supportWorkspace, type Workspace, type WorkspaceOptions } from './workspace.js';
export { TEAM_PAGE_SIZE } from './teams.js';
