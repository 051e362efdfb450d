import type { Toolkit } from '@quiver/core';
import { crmMarketing } from './crm-marketing/index.js';
import { repoHost } from './repo-host/index.js';

export { crmMarketing, repoHost };

/** Every built-in toolkit. */
export const toolkits: Toolkit[] = [crmMarketing, repoHost];
