/** Figma node ids: `1:2` in the API, `1-2` in the node-id of a Figma URL; instances chain them (`I1:2;3:4`). */
import { toolError, type ToolError } from '@quiver/core';

const NODE_ID = /^I?\d+[:-]\d+(;I?\d+[:-]\d+)*$/;

/** The ids in the colon form the API expects, or an error naming the parameter and the id at fault. */
export function normalizeNodeIds(tool: string, parameter: string, ids: string[]): { ids: string[] } | { error: ToolError } {
  const wrong = ids.filter((id) => !NODE_ID.test(id.trim()));
  if (wrong.length) {
    return toolError(
      'TOOL_RUNTIME_BAD_INPUT_VALUE',
      `Invalid input for ${tool}: parameter '${parameter}' has ${wrong.map((id) => `'${id}'`).join(', ')}, which is not a Figma node id (like 1:2, or 1-2 as in Figma URLs).`,
    );
  }
  return { ids: ids.map((id) => id.trim().replaceAll('-', ':')) };
}
