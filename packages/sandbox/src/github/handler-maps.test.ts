import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { checksHandlers } from './checks.js';
import { deploymentsHandlers } from './deployments.js';
import { gitDataHandlers } from './git-data.js';
import { orgMembershipHandlers } from './org-membership.js';
import { repoSettingsHandlers } from './repo-settings.js';
import { runnersHandlers } from './runners.js';
import { secretsHandlers } from './secrets.js';
import { statusesHandlers } from './statuses.js';

const description = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@octokit/openapi/generated/ghes-3.8.json'), 'utf8'));
const operationIds = new Set(Object.values<any>(description.paths).flatMap((item) => Object.values<any>(item).map((op) => op?.operationId)));

describe('handler maps', () => {
  it.each(Object.entries({ checksHandlers, deploymentsHandlers, gitDataHandlers, orgMembershipHandlers, repoSettingsHandlers, runnersHandlers, secretsHandlers, statusesHandlers }))(
    '%s names only ghes-3.8 operations',
    (_, handlers) => {
      expect(Object.keys(handlers).filter((id) => !operationIds.has(id))).toEqual([]);
    },
  );
});
