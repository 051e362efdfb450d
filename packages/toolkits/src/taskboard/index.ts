import { callUpstream, defineToolkit, parseRequestBody, type Tool, type ToolHandler } from '@quiver/core';
import { bindingsOf } from '../bindings.js';
import { readCatalog } from '../read-catalog.js';
import { createChecklist } from './checklist.js';
import { missingTeam } from './custom-task-ids.js';
import { taskFilters } from './filters.js';

const data = readCatalog(new URL('./catalog.json', import.meta.url));
const binding = bindingsOf(data);

/**
 * A mode-driven ClickUp call. Its query parameters (team id, custom task ids) stay optional in execute,
 * as the spec has them; only the path parameter is required with the body.
 */
function modeDriven(name: string, teamParameter: string): ToolHandler {
  const tool = binding(name);
  const withoutQuery: Tool = { ...tool, parameters: tool.parameters.filter((parameter) => parameter.in !== 'query') };
  return async (args, context) => {
    const refused = missingTeam(name, args, teamParameter);
    if (refused) return refused;
    const parsed = parseRequestBody(withoutQuery, args);
    return 'error' in parsed ? parsed : callUpstream(tool, args, context, parsed);
  };
}

const getTasks = binding('GetTasksInList');
const getTask = binding('RetrieveTaskDetails');

/**
 * ClickUp (API v2): tasks, lists, checklists, custom fields and time tracking. CreateTaskboardList and
 * CreateCustomField are plain bindings; the others check what ClickUp would refuse or need reshaped.
 */
export const taskboard = defineToolkit(data, {
  CreateChecklist: createChecklist(binding('CreateChecklist')),
  CreateTaskInList: modeDriven('CreateTaskInList', 'team_identifier'),
  TrackTimeEntry: modeDriven('TrackTimeEntry', 'team_id'),
  GetTasksInList: async (args, context) => {
    const filtered = taskFilters(args);
    return 'error' in filtered ? filtered : callUpstream(getTasks, filtered.args, context);
  },
  RetrieveTaskDetails: async (args, context) => missingTeam('RetrieveTaskDetails', args, 'team_id') ?? callUpstream(getTask, args, context),
});
