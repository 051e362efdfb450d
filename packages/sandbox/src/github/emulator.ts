/**
 * The GitHub (Enterprise Server 3.8) emulator: the shared HTTP layer (routing, validation,
 * recording) over the generated operation table, GitHub's auth, errors and
 * rate-limit headers, SQLite state for the domains that keep it, and the description's samples for
 * every other operation.
 */
import type Database from 'better-sqlite3';
import { createClock, type Clock } from '../emulator/clock.js';
import { resetTables, serviceDatabase } from '../emulator/database.js';
import { combineHandlers } from '../emulator/handlers.js';
import { startEmulator, type RecordedRequest } from '../emulator/server.js';
import { account, accountHandlers, authenticate, createAccountTables, tokenFor } from './accounts.js';
import { checksHandlers, createChecksTables } from './checks.js';
import { collaboratorHandlers, createCollaboratorTables } from './collaborators.js';
import { commitCommentHandlers, createCommitCommentTables } from './commit-comments.js';
import { createOrganizationTables } from './common.js';
import type { GithubContext, GithubUser, Handler } from './context.js';
import { createDeploymentsTables, deploymentsHandlers } from './deployments.js';
import { renderGithubError } from './errors.js';
import { genericAnswer } from './generic.js';
import { createGitDataTables, gitDataHandlers } from './git-data.js';
import { createIssueCommentTables, issueCommentHandlers } from './issue-comments.js';
import { createIssueTables, issueHandlers } from './issues.js';
import { createLabelTables, labelHandlers } from './labels.js';
import { createOrgMembershipTables, orgMembershipHandlers } from './org-membership.js';
import { createPullTables, pullHandlers } from './pulls.js';
import { RateLimited, RateLimits, type RateLimitSetting } from './rate-limit.js';
import { createReactionTables, reactionHandlers } from './reactions.js';
import { createRepoSettingsTables, repoSettingsHandlers } from './repo-settings.js';
import { createRepositoryTables, repositoryHandlers, toRepository, visibleRepositoryRow } from './repositories.js';
import { createReviewCommentTables, reviewCommentHandlers } from './review-comments.js';
import { createRunnersTables, runnersHandlers } from './runners.js';
import { createSamples, type Samples } from './samples.js';
import { createSecretsTables, secretsHandlers } from './secrets.js';
import { createStatusesTables, statusesHandlers } from './statuses.js';
import { githubOperations, type GithubOperations } from './table.js';

export type { RateLimitSetting } from './rate-limit.js';

export interface GithubEmulatorOptions {
  /** The clock handlers read; tests pass one they control. Default: real time. */
  clock?: Clock;
  /** SQLite file for state that outlives the process. Default: in memory. */
  dbPath?: string;
}

export interface GithubEmulator {
  /** Base URL, e.g. http://127.0.0.1:43121; operation paths (without /api/v3) go after it. */
  url: string;
  /** Every request received, in order, refused ones included. */
  requests: RecordedRequest[];
  clock: Clock;
  /** The state, for tests to seed or inspect directly. */
  db: Database.Database;
  /** A token that acts as `login` (created on demand); pass `token` to make that string act as the login. */
  tokenFor(login: string, token?: string): string;
  /** Switches rate limiting: `off`, `primary` (403) or `secondary` (429), optionally after `remaining` more requests. */
  rateLimit(setting: RateLimitSetting): void;
  /** Empties all state (users and tokens too) and the request log, and starts a fresh rate-limit budget with the switch off. */
  reset(): void;
  close(): Promise<void>;
}

export const githubHandlers: Record<string, Handler> = combineHandlers(
  'GitHub',
  accountHandlers,
  repositoryHandlers,
  collaboratorHandlers,
  labelHandlers,
  issueHandlers,
  issueCommentHandlers,
  reactionHandlers,
  commitCommentHandlers,
  pullHandlers,
  reviewCommentHandlers,
  statusesHandlers,
  deploymentsHandlers,
  gitDataHandlers,
  checksHandlers,
  secretsHandlers,
  runnersHandlers,
  repoSettingsHandlers,
  orgMembershipHandlers,
);

function createTables(db: Database.Database): void {
  createAccountTables(db);
  createOrganizationTables(db);
  createRepositoryTables(db);
  createCollaboratorTables(db);
  createLabelTables(db);
  createIssueTables(db);
  createIssueCommentTables(db);
  createReactionTables(db);
  createCommitCommentTables(db);
  createPullTables(db);
  createReviewCommentTables(db);
  createStatusesTables(db);
  createDeploymentsTables(db);
  createGitDataTables(db);
  createChecksTables(db);
  createSecretsTables(db);
  createRunnersTables(db);
  createRepoSettingsTables(db);
  createOrgMembershipTables(db);
}

/** Built once per process, at the first start: samples are the same for every emulator. */
let described: { operations: GithubOperations; samples: Samples } | undefined;

function description() {
  described ??= { operations: githubOperations, samples: createSamples(githubOperations) };
  return described;
}

export async function startGithubEmulator(options: GithubEmulatorOptions = {}): Promise<GithubEmulator> {
  const { operations, samples } = description();
  checkHandlersNameOperations(operations);
  const clock = options.clock ?? createClock();
  const { db, inTransaction } = serviceDatabase(options.dbPath);
  createTables(db);
  const limits = new RateLimits(clock);

  /** The context a handler sees: repositories as the caller may see them (a private one they cannot is absent). */
  const contextFor = (viewer: GithubUser): GithubContext => ({
    db,
    clock,
    repository: (owner, name) => toRepository(visibleRepositoryRow(db, owner, name, viewer)),
    user: (login) => account(db, login, clock.now()),
    sample: (label, status) => samples.sample(label, status),
  });

  const server = await startEmulator<GithubUser>({
    operations: operations.table,
    authenticate(headers) {
      const user = inTransaction(() => authenticate(db, headers.authorization, clock.now()));
      limits.take(user.id);
      return user;
    },
    handle({ label, operation, params, query, body }, user) {
      const handler = githubHandlers[label];
      const request = { operation: label, params, query, body, user };
      const response = inTransaction(() => (handler ? handler(request, contextFor(user)) : genericAnswer(samples, operation, request)));
      return { ...response, headers: { ...limits.headers(), ...response.headers } };
    },
    renderError(error) {
      if (error instanceof RateLimited) return { status: error.status, body: error.body, headers: error.headers };
      const response = renderGithubError(error, operations.tags);
      return { ...response, headers: { ...limits.headers(), ...response.headers } };
    },
  });

  return {
    url: server.url,
    requests: server.requests,
    clock,
    db,
    tokenFor: (login, token) => inTransaction(() => tokenFor(db, login, clock.now(), token)),
    rateLimit: (setting) => limits.set(setting),
    reset() {
      resetTables(db, createTables);
      limits.reset();
      server.requests.length = 0;
    },
    async close() {
      await server.close();
      db.close();
    },
  };
}

/** Fails loudly at startup rather than leave a handler unreachable (a misspelt or placeholder operation). */
function checkHandlersNameOperations({ table }: GithubOperations): void {
  const unknown = Object.keys(githubHandlers).filter((label) => !table.operations[label]);
  if (unknown.length) throw new Error(`GitHub emulator: handlers for operations ghes-3.8 does not serve: ${unknown.join(', ')}`);
}
