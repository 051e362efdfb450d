import { describe, expect, it } from 'vitest';
import { checksHandlers } from './checks.js';
import { deploymentsHandlers } from './deployments.js';
import { gitDataHandlers } from './git-data.js';
import { orgMembershipHandlers } from './org-membership.js';
import { repoSettingsHandlers } from './repo-settings.js';
import { runnersHandlers } from './runners.js';
import { secretsHandlers } from './secrets.js';
import { statusesHandlers } from './statuses.js';

import { githubOperations } from './table.js';

const operationIds = new Set(Object.keys(githubOperations.table.operations));

describe('handler maps', () => {
  it.each(
    Object.entries({
      checksHandlers,
      deploymentsHandlers,
      gitDataHandlers,
      orgMembershipHandlers,
      repoSettingsHandlers,
      runnersHandlers,
      secretsHandlers,
      statusesHandlers,
    }),
  )('%s names only ghes-3.8 operations', (_, handlers) => {
    expect(Object.keys(handlers).filter((id) => !operationIds.has(id))).toEqual([]);
  });
});
