/**
 * The GitHub (Enterprise Server 3.8) emulator: the generated operation table, GitHub's tokens, errors
 * and rate-limit headers, SQLite state for the domains that keep it, and the description's samples for
 * every other operation, over the shared emulator layer.
 */
import type Database from 'better-sqlite3';
import { defineEmulator, type Emulator, type EmulatorOptions } from '../emulator/define.js';
import { combineHandlers } from '../emulator/handlers.js';
import { account, accountHandlers, createAccountTables, readToken, tokenFor, unauthorized, userOfToken } from './accounts.js';
import { checksHandlers, createChecksTables } from './checks.js';
import { collaboratorHandlers, createCollaboratorTables } from './collaborators.js';
import { commitCommentHandlers, createCommitCommentTables } from './commit-comments.js';
import { createOrganizationTables } from './common.js';
import { GithubError, type GithubCaller, type GithubContext, type Handler } from './context.js';
import { createDeploymentsTables, deploymentsHandlers } from './deployments.js';
import { renderGithubError } from './errors.js';
import { genericAnswer } from './generic.js';
import { createGitDataTables, gitDataHandlers } from './git-data.js';
import { createIssueCommentTables, issueCommentHandlers } from './issue-comments.js';
import { createIssueTables, issueHandlers } from './issues.js';
import { createLabelTables } from './label-table.js';
import { labelHandlers } from './labels.js';
import { createOrgMembershipTables, orgMembershipHandlers } from './org-membership.js';
import { createPullTables, pullHandlers } from './pulls.js';
import { githubRateLimit, RateLimited, SecondaryLimit, type SecondaryRateLimit } from './rate-limit.js';
import { createReactionTables, reactionHandlers } from './reactions.js';
import { createRepoSettingsTables, repoSettingsHandlers } from './repo-settings.js';
import { createRepositoryTables, repositoryHandlers, toRepository, visibleRepositoryRow } from './repositories.js';
import { createReviewCommentTables, reviewCommentHandlers } from './review-comments.js';
import { createRunnersTables, runnersHandlers } from './runners.js';
import { createSamples, type Samples } from './samples.js';
import { createSecretsTables, secretsHandlers } from './secrets.js';
import { createStatusesTables, statusesHandlers } from './statuses.js';
import { githubOperations } from './table.js';

export type { SecondaryRateLimit } from './rate-limit.js';

export type GithubEmulatorOptions = EmulatorOptions;

/** The GitHub emulator's own methods, besides the shared ones. */
export interface GithubTools {
  /**
   * A token that acts as `login` (created on demand), issued: the login's first token, or `token`
   * itself when given. A token issued with `issueToken()` alone acts as the next of user1, user2, ...
   */
  tokenFor(login: string, token?: string): string;
  /**
   * Switches GitHub's secondary limit (429 with Retry-After), optionally after `remaining` more requests.
   * The primary limit is the shared layer's budget per token (`setRateLimit`).
   */
  rateLimit(setting: SecondaryRateLimit): void;
}

/** `reset()` also forgets users and which login each token acts as, and turns the secondary limit off. */
export type GithubEmulator = Emulator & GithubTools;

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

/** GitHub's logins: letters, digits, hyphens and (in imported accounts) underscores, at most 39 characters. */
const LOGIN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$/;

/** Built once per process, at the first start: samples are the same for every emulator. */
let samples: Samples | undefined;

/** What handlers see, and the secondary limit's switch the HTTP side keeps. */
interface GithubState extends GithubContext {
  samples: Samples;
  secondary: SecondaryLimit;
}

export const startGithubEmulator = defineEmulator<GithubCaller, GithubState, GithubTools>({
  name: 'GitHub',
  operations: githubOperations.table,
  handlers: githubHandlers,
  // Operations without state behind them answer the description's sample.
  fallback: (request, ctx) => genericAnswer(ctx.samples, githubOperations.table.operations[request.operation]!, request),
  createTables,
  context({ db, clock }) {
    samples ??= createSamples(githubOperations);
    const known = samples;
    return {
      db,
      clock,
      samples: known,
      secondary: new SecondaryLimit(),
      repository: () => {
        throw new Error('GitHub emulator: a repository is read as some caller sees it (see scope)');
      },
      user: (login) => {
        // No account can have such a login (it could not even be written in the account's URL): GitHub answers 404.
        if (!LOGIN.test(login)) throw new GithubError(404, 'Not Found');
        return account(db, login, clock.now());
      },
      sample: (label, status) => known.sample(label, status),
    };
  },
  credentials: {
    read: readToken,
    refuse: unauthorized,
    principal(token, { db, clock, secondary }) {
      const user = userOfToken(db, token, clock.now());
      secondary.take();
      return { user };
    },
    tokenPrefix: 'ghp_',
  },
  // Repositories as the caller may see them: a private one they cannot is absent.
  scope: (ctx, { user }) => ({ ...ctx, repository: (owner, name) => toRepository(visibleRepositoryRow(ctx.db, owner, name, user)) }),
  renderError(error) {
    if (error instanceof RateLimited) return { status: error.status, body: error.body, headers: error.headers };
    return renderGithubError(error, githubOperations.tags);
  },
  rateLimit: githubRateLimit,
  api: ({ db, clock, inTransaction, issue }, { secondary }) => ({
    tokenFor: (login, token) => issue(inTransaction(() => tokenFor(db, login, clock.now(), token))),
    rateLimit: (setting) => secondary.set(setting),
  }),
  reset: ({ secondary }) => secondary.set({ kind: 'off' }),
});
