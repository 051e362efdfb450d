import { defineToolkit, type HttpBinding, type Parameter, type Tool, type ToolkitData } from '@quiver/core';

/** Each of a toolkit's tools as a plain binding, by name, for its handlers to call upstream through. */
export function bindingsOf(data: ToolkitData): (name: string) => Tool {
  const bindings = defineToolkit(data);
  return (name) => bindings.tools.find((tool) => tool.name === name)!;
}

/** The tool bound to another operation, with its parameters placed anew (handlers that choose the operation). */
export const variant = (tool: Tool, http: HttpBinding, parameters: Array<Omit<Parameter, 'description' | 'required' | 'schema'>>): Tool => ({
  ...tool,
  http,
  parameters: parameters.map((parameter) => ({ description: '', required: false, schema: {}, ...parameter })),
});
