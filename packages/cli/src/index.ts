/**
 * The `quiver-engine` package as a library: the authoring API of toolkits with code of their own.
 *
 *   import { defineToolkit, defineTool } from 'quiver-engine';
 *   export default defineToolkit({ name: 'Greeter', description: '...', tools: [defineTool({ ... })] });
 *
 * (The command itself is `quiver`, bin/quiver.js.)
 */
export {
  defineTool,
  defineToolkit,
  type DefinedTool,
  type InputSchema,
  type ParameterSchema,
  type ToolDefinition,
  type ToolkitDefinition,
} from './authoring.js';
import type { ToolkitData } from '@quiver/core';
import { readCatalog as readToolkitCatalog } from '@quiver/toolkits';

/**
 * A catalog (ToolkitData) from its JSON file, as the built-in toolkits read theirs, with the search phrases of
 * `phrases.json` beside it when there is one: `defineToolkit(readCatalog(new URL('./catalog.json', import.meta.url)), handlers)`.
 */
export const readCatalog: (url: URL) => ToolkitData = readToolkitCatalog;

export {
  toolError,
  type Annotations,
  type ErrorKind,
  type HttpBinding,
  type JsonSchema,
  type Parameter,
  type Requirements,
  type Tool,
  type ToolContext,
  type ToolData,
  type ToolError,
  type ToolHandler,
  type Toolkit,
  type ToolkitData,
  type ToolResult,
} from '@quiver/core';
