/**
 * Reading the body of a mode-driven commerce tool in mode execute. The tools have handlers, so the
 * body checks core applies to every binding are applied here, then the shop's own rules, which the
 * schema cannot express (they depend on the customer, the product or the country). Every failure is
 * the RETRY error of any mode-driven tool, naming the JSON pointer to fix.
 */
import { parseRequestBody, pointerToPath, toolError, type Tool, type ToolError, type ValidationIssue } from '@quiver/core';

export type BodyResult<T> = { body: T } | { error: ToolError };

/**
 * The body, once the parameters this tool requires in mode execute are present and the body parses
 * and conforms to the schema.
 */
export function readBody<T>(tool: Tool, args: Record<string, unknown>, requiredForExecute: readonly string[] = []): BodyResult<T> {
  const missing = requiredForExecute.filter((name) => args[name] === undefined);
  if (missing.length) {
    const names = missing.join(', ');
    return toolError('TOOL_RUNTIME_RETRY', `Missing ${names}: required when mode is "execute".`, {
      additional_prompt_content: `Pass ${names} together with request_body.`,
    });
  }
  return parseRequestBody(tool, args) as BodyResult<T>;
}

/** A body that conforms to the schema but breaks a rule of the shop; nothing has been stored. */
export function bodyRefused(issues: readonly ValidationIssue[]): { error: ToolError } {
  const lines = issues.map((item) => `${item.pointer} (${pointerToPath(item.pointer)}) ${item.message}`).join('; ');
  return toolError('TOOL_RUNTIME_RETRY', `request_body was not accepted: ${lines}.`, {
    additional_prompt_content: `Fix these JSON pointers and call again: ${lines}.`,
  });
}
