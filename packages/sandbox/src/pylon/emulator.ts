/**
 * The Pylon emulator: the shared HTTP layer (routing, validation, recording) over the generated
 * operation table, Pylon's bearer-token auth and error shape, SQLite state, and one handler per
 * operation. Pylon has no API for creating users or teams, so tests and the sandbox seed the
 * workspace through the methods below.
 */
import type Database from 'better-sqlite3';
import { createClock, type Clock } from '../emulator/clock.js';
import { checkHandlers, resetTables, serviceDatabase } from '../emulator/database.js';
import { combineHandlers } from '../emulator/handlers.js';
import { startEmulator, type RecordedRequest } from '../emulator/server.js';
import { accountHandlers, bearerToken, createAccountTables, serviceAccountFor } from './accounts.js';
import { addContact, contactHandlers, createContactTables, type ContactInput } from './contacts.js';
import type { Handler, PylonContext, ServiceAccount } from './context.js';
import { renderPylonError } from './errors.js';
import { addIssue, createIssueTables, issueHandlers, type IssueInput } from './issues.js';
import { operationTable } from './table.js';
import { addTeam, createTeamTables, teamHandlers } from './teams.js';
import { addUser, createUserTables, userHandlers, type UserInput } from './users.js';
import type { Workspace } from './workspace.js';

export interface PylonEmulatorOptions {
  /** The clock handlers read; tests pass one they control. Default: real time. */
  clock?: Clock;
  /** SQLite file for state that outlives the process. Default: in memory. */
  dbPath?: string;
}

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

export interface PylonEmulator {
  url: string;
  /** Every request received, in order, refused ones included. */
  requests: RecordedRequest[];
  clock: Clock;
  db: Database.Database;
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
  /** Empties all state and the request log. */
  reset(): void;
  close(): Promise<void>;
}

export const pylonHandlers: Record<string, Handler> = combineHandlers('Pylon', accountHandlers, issueHandlers, userHandlers, teamHandlers, contactHandlers);

function createTables(db: Database.Database): void {
  createAccountTables(db);
  createUserTables(db);
  createTeamTables(db);
  createContactTables(db);
  createIssueTables(db);
}

export async function startPylonEmulator(options: PylonEmulatorOptions = {}): Promise<PylonEmulator> {
  checkHandlers('Pylon', operationTable, pylonHandlers);
  const clock = options.clock ?? createClock();
  const { db, inTransaction } = serviceDatabase(options.dbPath);
  createTables(db);
  const ctx: PylonContext = { db, clock };

  const server = await startEmulator<ServiceAccount>({
    operations: operationTable,
    authenticate: (headers) => inTransaction(() => serviceAccountFor(db, bearerToken(headers.authorization))),
    handle: ({ label, params, query, body }, account) => inTransaction(() => pylonHandlers[label]!({ operation: label, params, query, body, account }, ctx)),
    renderError: renderPylonError,
  });

  function load(workspace: Workspace): LoadedWorkspace {
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

  return {
    url: server.url,
    requests: server.requests,
    clock,
    db,
    serviceAccountFor: (token, name) => inTransaction(() => serviceAccountFor(db, token, name)),
    addUser: (input) => inTransaction(() => addUser(db, input)),
    addTeam: (name, userIds) => inTransaction(() => addTeam(db, name, userIds)),
    addContact: (input) => inTransaction(() => addContact(db, input)),
    addIssue: (input) => inTransaction(() => addIssue(db, clock.now(), input)),
    load: (workspace) => inTransaction(() => load(workspace)),
    reset() {
      resetTables(db, createTables);
      server.requests.length = 0;
    },
    async close() {
      await server.close();
      db.close();
    },
  };
}

function fail(message: string): never {
  throw new Error(`Pylon emulator: ${message}`);
}
