/**
 * The flags that decide what a server offers and how its calls are guarded (`quiver mcp`, `quiver serve`,
 * and `quiver tools tokens`, which measures what those would list).
 */
import { Option, type Command } from 'commander';
import { defaultMaxResponseTokens, unknownSelectionNames, type ServingOptions, type Toolkit } from '@quiver/core';
import { UsageError } from './usage-error.js';

export interface ServingFlags {
  discovery?: boolean;
  toolkits?: string;
  tools?: string;
  excludeTools?: string;
  readOnly?: boolean;
  confirmDestructive?: boolean;
  maxResponseTokens?: string;
}

/**
 * Adds the serving flags to a command. `tools tokens` takes only those that change the listing: it
 * reports every tool and discovery mode side by side, and no result is ever cut there.
 */
export function addServingOptions(command: Command, { listingOnly = false } = {}): Command {
  if (!listingOnly) command.addOption(new Option('--discovery', 'list three meta-tools (search_tools, describe_tool, call_tool) instead of every tool'));
  command
    .addOption(new Option('--toolkits <names>', 'offer only the tools of these toolkits (comma-separated)'))
    .addOption(new Option('--tools <names>', 'offer only these tools, e.g. RepoHostApi.GetRepohostRepositoryDetails (comma-separated; adds to --toolkits)'))
    .addOption(new Option('--exclude-tools <names>', 'never offer these tools (comma-separated)'))
    .addOption(new Option('--read-only', 'offer and run only tools that read (readOnlyHint); others are refused when called'))
    .addOption(new Option('--confirm-destructive', 'destructive tools take a confirm argument and run only with confirm: true'));
  if (!listingOnly) {
    command.addOption(
      new Option('--max-response-tokens <n>', 'cut results estimated over this many tokens, with a note on how to get the rest (0: never)').default(
        String(defaultMaxResponseTokens),
      ),
    );
  }
  return command;
}

export function servingOptions(flags: ServingFlags): ServingOptions {
  const list = (text: string | undefined) =>
    text
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean);
  const maxResponseTokens = flags.maxResponseTokens === undefined ? undefined : Number(flags.maxResponseTokens);
  if (maxResponseTokens !== undefined && (!Number.isInteger(maxResponseTokens) || maxResponseTokens < 0)) {
    throw new UsageError(`--max-response-tokens must be a whole number of tokens (0 for no limit), got '${flags.maxResponseTokens}'`);
  }
  return {
    toolkits: list(flags.toolkits),
    tools: list(flags.tools),
    excludeTools: list(flags.excludeTools),
    readOnly: flags.readOnly === true,
    confirmDestructive: flags.confirmDestructive === true,
    maxResponseTokens,
  };
}

/**
 * Names in --toolkits, --tools and --exclude-tools that match no tool, as a message; undefined when all match.
 * Only tool names need the toolkits' tools read.
 */
export function unmatchedNames(serving: ServingOptions, toolkits: readonly Toolkit[]): string | undefined {
  const namesTools = Boolean(serving.tools?.length || serving.excludeTools?.length);
  const known = new Set(toolkits.map((toolkit) => toolkit.name.toLowerCase()));
  const unknown = namesTools
    ? unknownSelectionNames(
        serving,
        toolkits.flatMap((toolkit) => toolkit.tools),
      )
    : (serving.toolkits ?? []).filter((name) => !known.has(name.trim().toLowerCase()));
  if (!unknown.length) return undefined;
  const names = unknown.map((name) => `'${name}'`).join(', ');
  if (namesTools) return `no toolkit or tool named ${names} (see: quiver tools list)`;
  const all = toolkits.map((toolkit) => toolkit.name).sort();
  return `no toolkit named ${names} (--toolkits); the toolkits are ${all.join(', ')}`;
}
