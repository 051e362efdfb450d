import { bindingsOf } from '../bindings.js';
import { readCatalog } from '../read-catalog.js';

export { variant } from '../bindings.js';

export const data = readCatalog(new URL('./catalog.json', import.meta.url));
export const binding = bindingsOf(data);
