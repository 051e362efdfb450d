/**
 * SupportDesk: the toolkit catalog, from the interface in catalog/SupportDesk.json and our own
 * descriptions (packages/toolkits/src/support-desk/descriptions.json). Two tools are plain bindings of
 * one Pylon operation; the others have handlers (packages/toolkits/src/support-desk) that call Pylon,
 * possibly several times, and rank or filter locally, so their parameters have no upstream placement.
 */
import { resolve } from 'node:path';
import type { Annotations, HttpBinding, JsonSchema, ParameterLocation, ToolData } from '../../packages/core/src/tool.js';
import type { GeneratedFile } from '../generate.js';
import { parametersOf, readDescriptions, readJson, toolkitFile, type CatalogParam } from './shared.js';

const toolkitDir = 'packages/toolkits/src/support-desk';
const apiToken = 'SUPPORT_API_TOKEN';

interface SupportTool {
  name: string;
  upstream_calls: Array<{ method: HttpBinding['method']; path: string }>;
  params: CatalogParam[];
  secrets: string[];
}

/** The tools that are one Pylon call as they stand, with where each parameter goes. */
const bindings: Record<string, Record<string, { in: ParameterLocation; upstream: string }>> = {
  WhoAmI: {},
  ListTeams: { cursor: { in: 'query', upstream: 'cursor' } },
};

/** Handler tools have no binding to derive hints from: these read, and these set a value (repeatable). */
const reads = ['GetIssue', 'GetTeamAndAssignment', 'ListContacts', 'ListIssues', 'ListUsers', 'SearchContacts', 'SearchIssues', 'SearchUsers'];
const sets = ['AssignIssue', 'UpdateIssueStatus'];

/** Constraints beyond the catalog's types, checked before anything is sent. */
const constraints: Record<string, JsonSchema> = {
  start_time: { format: 'date-time' },
  end_time: { format: 'date-time' },
  tags: { items: { type: 'string', minLength: 1 } },
  limit: { minimum: 1, maximum: 1000 },
  max_pages: { minimum: 1 },
  query: { minLength: 1 },
  value: { minLength: 1 },
  issue_value: { minLength: 1 },
  user_value: { minLength: 1 },
  issue_id: { minLength: 1 },
  body: { minLength: 1 },
};

export function generateSupportDesk(sharedDir: string): GeneratedFile[] {
  const catalog = readJson(resolve(sharedDir, 'catalog/SupportDesk.json')) as { toolkit: string; default_base_url: string; tools: SupportTool[] };
  const descriptions = readDescriptions(toolkitDir);

  const tools = catalog.tools.map((tool): ToolData => {
    const where = (problem: string) => `SupportDesk.${tool.name}: ${problem}`;
    const text = descriptions.tools[tool.name];
    if (!text) throw new Error(where('no description'));
    const binding = bindings[tool.name];
    // Handler tools place nothing: their handlers read every parameter.
    const parameters = parametersOf(tool, text, where, { placed: binding ?? {}, refine: (param) => constraints[param.name] });
    const data: ToolData = {
      name: tool.name,
      title: text.title,
      description: text.description,
      parameters,
      output: { description: text.output },
      requirements: { secrets: tool.secrets.map((key) => ({ key })) },
    };
    if (binding) {
      const [call] = tool.upstream_calls;
      if (tool.upstream_calls.length !== 1 || !call) throw new Error(where('a binding must be exactly one upstream call'));
      data.http = { method: call.method, path: call.path, auth: { secret: apiToken, scheme: 'Bearer' } };
    } else {
      const annotations: Partial<Annotations> | undefined = reads.includes(tool.name)
        ? { readOnlyHint: true, idempotentHint: true }
        : sets.includes(tool.name)
          ? { idempotentHint: true }
          : undefined;
      if (annotations) data.annotations = annotations;
    }
    return data;
  });

  // Version: spec part 9.
  return [toolkitFile(toolkitDir, catalog, descriptions, tools, '0.2.0')];
}
