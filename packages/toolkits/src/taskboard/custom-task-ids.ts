/**
 * Custom task ids (such as DEV-42) are unique only within a workspace, so ClickUp needs the workspace
 * (team) id with them. A call that asks for custom ids without one is refused before it is sent.
 */
import { toolError, type ToolError } from '@quiver/core';

export function missingTeam(tool: string, args: Record<string, unknown>, teamParameter: string): { error: ToolError } | undefined {
  if (args.use_custom_task_ids !== true || args[teamParameter]) return undefined;
  return toolError(
    'TOOL_RUNTIME_BAD_INPUT_VALUE',
    `Invalid input for ${tool}: parameter '${teamParameter}' is required when use_custom_task_ids is true (custom task ids are unique only within a workspace, so ClickUp needs its team id).`,
  );
}
