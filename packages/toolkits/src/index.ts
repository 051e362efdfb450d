import type { Toolkit } from '@quiver/core';
import { crmMarketing } from './crm-marketing/index.js';

export { crmMarketing };

/** Every built-in toolkit. */
export const toolkits: Toolkit[] = [crmMarketing];
