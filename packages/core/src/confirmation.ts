/**
 * Confirmation of destructive calls, when a server asks for it: a destructive tool is listed with an
 * extra `confirm` parameter and refuses to run until it is true, so that a model has to stop and ask
 * the user before deleting anything. The parameter is the server's, never sent upstream.
 */
import { toolError, type ToolError } from './errors.js';
import { annotationsOf, qualifiedName, type JsonSchema, type Tool } from './tool.js';

export const confirmName = 'confirm';

export const confirmSchema: JsonSchema = {
  type: 'boolean',
  description: 'This tool deletes or irreversibly changes data. Set true only after the user has confirmed this exact action.',
};

/** Destructive, and without a `confirm` parameter of its own. */
export const needsConfirmation = (tool: Tool): boolean =>
  annotationsOf(tool).destructiveHint && !tool.parameters.some((parameter) => parameter.name === confirmName);

/** The refusal of an unconfirmed call, or undefined when `confirm` is true. */
export function unconfirmed(tool: Tool, args: Record<string, unknown>): { error: ToolError } | undefined {
  if (args[confirmName] === true) return undefined;
  return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `${qualifiedName(tool)} is destructive and was not confirmed; nothing was done.`, {
    additional_prompt_content: `Ask the user to confirm this exact action. Only if they agree, call ${qualifiedName(tool)} again with the same arguments and confirm: true.`,
    developer_message: 'Refused by --confirm-destructive: confirm was not true.',
  });
}
