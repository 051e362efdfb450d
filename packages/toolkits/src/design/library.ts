/**
 * Published components, component sets and styles, listed from one file (all at once) or from a team
 * library (a page at a time): the source decides the operation.
 */
import { callUpstream, toolError, type ToolHandler } from '@quiver/core';
import { binding, variant } from './bindings.js';

/** The spec's team page (part 8); Figma's own default is 30. */
const DEFAULT_PAGE_SIZE = 10;

export function libraryList(toolName: string, kind: 'components' | 'component_sets' | 'styles'): ToolHandler {
  const tool = binding(toolName);
  const fromFile = variant(tool, { method: 'GET', path: `/v1/files/{file_key}/${kind}` }, [{ name: 'source_id', in: 'path', upstream: 'file_key' }]);
  const fromTeam = variant(tool, { method: 'GET', path: `/v1/teams/{team_id}/${kind}` }, [
    { name: 'source_id', in: 'path', upstream: 'team_id' },
    { name: 'page_size', in: 'query', upstream: 'page_size' },
    { name: 'after_cursor', in: 'query', upstream: 'after' },
  ]);
  return async ({ source, source_id, page_size, after_cursor }, context) => {
    if (source === 'team') return callUpstream(fromTeam, { source_id, page_size: page_size ?? DEFAULT_PAGE_SIZE, after_cursor }, context);
    if (page_size !== undefined || after_cursor !== undefined) {
      return toolError(
        'TOOL_RUNTIME_BAD_INPUT_VALUE',
        `Invalid input for ${toolName}: page_size and after_cursor page a team library; a file's ${kind.replace('_', ' ')} come all at once, so leave them out when source is file.`,
      );
    }
    return callUpstream(fromFile, { source_id }, context);
  };
}
