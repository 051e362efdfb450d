import { defineToolkit } from '@quiver/core';
import { readCatalog } from '../read-catalog.js';

/** The engine's own HTTP API: every tool is a binding, so the toolkit is its catalog. */
export const toolEngine = defineToolkit(readCatalog(new URL('./catalog.json', import.meta.url)));
