/**
 * The Pylon emulator: the generated operation table, one handler per operation, Pylon's API tokens
 * and error shape, over the shared emulator layer. Pylon has no API for creating users or teams, so tests and the sandbox seed the
 * workspace through the methods below.
 */
import type Database from 'better-sqlite3';
import { bearerToken, defineEmulator, type Emulator, type EmulatorOptions, type EmulatorCore } from '../emulator/define.js';
import { combineHandlers } from '../emulator/handlers.js';
import { accountHandlers, createAccountTables, serviceAccountFor, unauthorized } from './accounts.js';
import { addContact, contactHandlers, createContactTables, type ContactInput } from './contacts.js';
import type { Handler, PylonCaller, PylonContext, ServiceAccount } from './context.js';
import { pylonRateLimit, renderPylonError } from './errors.js';
import { addIssue, createIssueTables, issueHandlers, type IssueInput } from './issues.js';
import { operationTable } from './table.js';
import { addTeam, createTeamTables, teamHandlers } from './teams.js';
import { addUser, createUserTables, userHandlers, type UserInput } from './users.js';
import type { Workspace } from './workspace.js';

export type PylonEmulatorOptions = EmulatorOptions;

export type PylonUser = ReturnType<typeof addUser>;
export type PylonTeam = ReturnType<typeof addTeam>;
export type PylonContact = ReturnType<typeof addContact>;
export type PylonIssue = ReturnType<typeof addIssue>;

export interface LoadedWorkspace {
  users: PylonUser[];
  teams: PylonTeam[];
  contacts: PylonContact[];
  issues: PylonIssue[];
}

/** The Pylon emulator's own methods, besides the shared ones. */
export interface PylonTools {
  /** The service account a token belongs to (created on first sight); `name` names or renames it. */
  serviceAccountFor(token: string, name?: string): ServiceAccount;
  addUser(input: UserInput): PylonUser;
  /** A team with the given users as members, in order. */
  addTeam(name: string, userIds?: string[]): PylonTeam;
  addContact(input: ContactInput): PylonContact;
  /** An issue, numbered after the last one; created now unless `created_at` says otherwise. */
  addIssue(input: IssueInput): PylonIssue;
  /** Adds a generated workspace (see supportWorkspace), with ages counted back from the clock's now. */
  load(workspace: Workspace): LoadedWorkspace;
}

export type PylonEmulator = Emulator & PylonTools;

export const pylonHandlers: Record<string, Handler> = combineHandlers('Pylon', accountHandlers, issueHandlers, userHandlers, teamHandlers, contactHandlers);

function createTables(db: Database.Database): void {
  createAccountTables(db);
  createUserTables(db);
  createTeamTables(db);
  createContactTables(db);
  createIssueTables(db);
}

export const startPylonEmulator = defineEmulator<PylonCaller, PylonContext, PylonTools>({
  name: 'Pylon',
  operations: operationTable,
  handlers: pylonHandlers,
  createTables,
  context: ({ db, clock }) => ({ db, clock }),
  credentials: { read: bearerToken, refuse: unauthorized, principal: (token, { db }) => ({ account: serviceAccountFor(db, token) }) },
  renderError: renderPylonError,
  rateLimit: pylonRateLimit,
  api: (core) => {
    const { db, clock, inTransaction } = core;
    return {
      serviceAccountFor: (token, name) => inTransaction(() => serviceAccountFor(db, token, name)),
      addUser: (input) => inTransaction(() => addUser(db, input)),
      addTeam: (name, userIds) => inTransaction(() => addTeam(db, name, userIds)),
      addContact: (input) => inTransaction(() => addContact(db, input)),
      addIssue: (input) => inTransaction(() => addIssue(db, clock.now(), input)),
      load: (workspace) => inTransaction(() => load(core, workspace)),
    };
  },
});

function load({ db, clock }: EmulatorCore, workspace: Workspace): LoadedWorkspace {
  const users = workspace.users.map((user) => addUser(db, user));
  const userId = (email: string) => users.find((user) => user.email === email)?.id ?? fail(`no user ${email}`);
  const teams = workspace.teams.map((team) => addTeam(db, team.name, team.members.map(userId)));
  const contacts = workspace.contacts.map((contact) => addContact(db, contact));
  const now = clock.now();
  // Oldest first, so that issue numbers grow with creation time as they do in a real workspace.
  const issues = [...workspace.issues]
    .sort((a, b) => b.age_ms - a.age_ms)
    .map(({ age_ms, assignee, team, ...issue }) =>
      addIssue(db, now, {
        ...issue,
        created_at: now - age_ms,
        ...(assignee && { assignee_id: userId(assignee) }),
        ...(team && { team_id: teams.find((candidate) => candidate.name === team)?.id ?? fail(`no team ${team}`) }),
      }),
    );
  return { users, teams, contacts, issues };
}

function fail(message: string): never {
  throw new Error(`Pylon emulator: ${message}`);
}
