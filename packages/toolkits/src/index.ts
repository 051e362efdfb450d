import type { Toolkit } from '@quiver/core';
import { crmMarketing } from './crm-marketing/index.js';
import { repoHost } from './repo-host/index.js';
import { toolEngine } from './tool-engine/index.js';

export { crmMarketing, repoHost, toolEngine };

/** Every built-in toolkit. */
export const toolkits: Toolkit[] = [crmMarketing, repoHost, toolEngine];
