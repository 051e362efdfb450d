import { describe, expect, it } from 'vitest';
import { checksHandlers } from '../../src/github/checks.js';
import { deploymentsHandlers } from '../../src/github/deployments.js';
import { gitDataHandlers } from '../../src/github/git-data.js';
import { orgMembershipHandlers } from '../../src/github/org-membership.js';
import { repoSettingsHandlers } from '../../src/github/repo-settings.js';
import { runnersHandlers } from '../../src/github/runners.js';
import { secretsHandlers } from '../../src/github/secrets.js';
import { statusesHandlers } from '../../src/github/statuses.js';

import { githubOperations } from '../../src/github/table.js';

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
