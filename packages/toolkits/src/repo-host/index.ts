import { defineToolkit } from '@quiver/core';
import { readCatalog } from '../read-catalog.js';

/** GitHub (REST, as on Enterprise Server 3.8): every tool is a binding, so the toolkit is its catalog. */
export const repoHost = defineToolkit(readCatalog(new URL('./catalog.json', import.meta.url)));
