import { defineToolkit } from '@quiver/core';
import { readCatalog } from '../read-catalog.js';
import { directoryHandlers } from './directory-tools.js';
import { issueHandlers } from './issue-tools.js';
import { ListIssues } from './list-issues.js';

/**
 * Support desk on Pylon. WhoAmI and ListTeams are plain bindings; the other tools have handlers that
 * call Pylon (possibly several times) and search, match or filter locally.
 */
export const supportDesk = defineToolkit(readCatalog(new URL('./catalog.json', import.meta.url)), { ...issueHandlers, ...directoryHandlers, ListIssues });
