/**
 * Which tools a server offers: the chosen toolkits and tools, minus the excluded ones, and only tools
 * that read when it is read-only. The same rule decides what is listed and what may be called, so a
 * tool left out of the listing cannot be reached by name either.
 */
import { toolError, type ToolError } from './errors.js';
import { functionName } from './formats.js';
import { annotationsOf, qualifiedName, type Tool } from './tool.js';

export interface ToolSelection {
  /** Only tools of these toolkits (and of `tools`); any letter case. */
  toolkits?: readonly string[];
  /** Only these tools (and those of `toolkits`), as `Toolkit.Tool` or `Toolkit_Tool`. */
  tools?: readonly string[];
  /** Never these tools. */
  excludeTools?: readonly string[];
  /** Never the tools of these toolkits (the engine's administration toolkit, for keys that do not administer it). */
  excludeToolkits?: readonly string[];
  /** Only tools whose readOnlyHint is true. */
  readOnly?: boolean;
  /** Why only tools that read are served, and what would allow the others; `--read-only` when absent. */
  readOnlyBecause?: { reason: string; remedy: string };
}

const namesOf = (tool: Tool) => [qualifiedName(tool).toLowerCase(), functionName(tool).toLowerCase()];
const lower = (names: readonly string[] | undefined) => new Set((names ?? []).map((name) => name.trim().toLowerCase()));

/** The selection as a test of one tool: undefined when the tool is served, else the error a call gets. */
export function selectionRule(selection: ToolSelection): (tool: Tool) => { error: ToolError } | undefined {
  const toolkits = lower(selection.toolkits);
  const tools = lower(selection.tools);
  const excluded = lower(selection.excludeTools);
  const excludedToolkits = lower(selection.excludeToolkits);
  const chosen = toolkits.size > 0 || tools.size > 0;
  return (tool) => {
    if (excludedToolkits.has(tool.toolkit.name.toLowerCase())) {
      return toolError(
        'TOOL_RUNTIME_BAD_INPUT_VALUE',
        `${qualifiedName(tool)} is not offered to this caller: ${tool.toolkit.name} is served to admin keys only.`,
      );
    }
    // A tool's names are worked out only where a selection names tools: a listing tests every tool.
    const inChoice = !chosen || toolkits.has(tool.toolkit.name.toLowerCase()) || namesOf(tool).some((name) => tools.has(name));
    if (!inChoice || (excluded.size > 0 && namesOf(tool).some((name) => excluded.has(name)))) {
      return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `${qualifiedName(tool)} is not offered by this server (its tool selection leaves it out).`, {
        developer_message: 'Refused by --toolkits, --tools or --exclude-tools.',
      });
    }
    if (selection.readOnly && !annotationsOf(tool).readOnlyHint) {
      const { reason, remedy } = selection.readOnlyBecause ?? serverReadOnly;
      return toolError(
        'TOOL_RUNTIME_BAD_INPUT_VALUE',
        `${qualifiedName(tool)} changes data, and ${reason}: only tools that read may be called. Use a read-only tool, or tell the user that ${remedy}.`,
        { developer_message: `Refused: the tool is not readOnlyHint, and ${reason}.` },
      );
    }
    return undefined;
  };
}

const serverReadOnly = { reason: 'this server is read-only (--read-only)', remedy: 'this action needs a server without --read-only' };

/** Names in the selection that match no tool (a typo would otherwise quietly serve nothing). */
export function unknownSelectionNames(selection: ToolSelection, tools: readonly Tool[]): string[] {
  const toolkits = new Set(tools.map((tool) => tool.toolkit.name.toLowerCase()));
  const names = new Set(tools.flatMap(namesOf));
  return [
    ...(selection.toolkits ?? []).filter((name) => !toolkits.has(name.trim().toLowerCase())),
    ...[...(selection.tools ?? []), ...(selection.excludeTools ?? [])].filter((name) => !names.has(name.trim().toLowerCase())),
  ];
}
