import type { Toolkit } from '@quiver/core';
import { join } from 'node:path';
import { commerceTools, createCommerceTools } from './commerce/index.js';
import { crmMarketing } from './crm-marketing/index.js';
import { design } from './design/index.js';
import { fileStore } from './file-store/index.js';
import { mailClient } from './mail-client/index.js';
import { repoHost } from './repo-host/index.js';
import { supportDesk } from './support-desk/index.js';
import { taskboard } from './taskboard/index.js';
import { toolEngine } from './tool-engine/index.js';
import { trackingApi } from './tracking/index.js';

export { builtCatalogText, readCatalog, writeDefinitions } from './read-catalog.js';
export { crmMarketing, repoHost, toolEngine, taskboard, fileStore, trackingApi, commerceTools, supportDesk, design, mailClient };

/** Every built-in toolkit; CommerceTools keeps what it creates in memory. */
export const toolkits: Toolkit[] = [crmMarketing, repoHost, toolEngine, taskboard, fileStore, trackingApi, commerceTools, supportDesk, design, mailClient];

/** Every built-in toolkit, with CommerceTools keeping what it creates in `commerce.db` in the data directory. */
export const builtinToolkitsFor = ({ dataDir }: { dataDir: string }): Toolkit[] =>
  toolkits.map((toolkit) => (toolkit === commerceTools ? createCommerceTools({ store: join(dataDir, 'commerce.db') }) : toolkit));
