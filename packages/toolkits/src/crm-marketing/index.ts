import { defineToolkit } from '@quiver/core';
import { readCatalog } from '../read-catalog.js';

/** HubSpot Marketing: every tool is a binding, so the toolkit is its catalog. */
export const crmMarketing = defineToolkit(readCatalog(new URL('./catalog.json', import.meta.url)));
