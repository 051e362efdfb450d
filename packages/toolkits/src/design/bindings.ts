import { defineToolkit, type HttpBinding, type Parameter, type Tool } from '@quiver/core';
import { readCatalog } from '../catalog.js';

export const data = readCatalog(new URL('./catalog.json', import.meta.url));
/** Each tool as a plain binding, for the handlers to call upstream through. */
const bindings = defineToolkit(data);

export const binding = (name: string): Tool => bindings.tools.find((tool) => tool.name === name)!;

/** The tool bound to another operation, with its parameters placed anew (handlers that choose the operation). */
export const variant = (tool: Tool, http: HttpBinding, parameters: Array<Omit<Parameter, 'description' | 'required' | 'schema'>>): Tool => ({
  ...tool,
  http,
  parameters: parameters.map((parameter) => ({ description: '', required: false, schema: {}, ...parameter })),
});
