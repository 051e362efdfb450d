/**
 * Writes the Figma emulator's operation table (packages/sandbox/src/figma/operations.json) from Figma's
 * published description (npm @figma/rest-api-spec, MIT, a devDependency of @quiver/sandbox): the operations
 * the Design toolkit calls, with their parameters and bodies exactly as described.
 *
 * One simplification: the description types every document node with its full trait set (a FRAME alone
 * requires dozens of fields). The emulator keeps node trees as stored data, so node schemas are reduced to
 * what identifies a node (id, name, type, children) and left open for the rest; envelopes, comments,
 * components, styles, projects and users keep the description's schemas.
 *
 * One correction: the nodes map of getFileNodes may hold null for an id the file lacks, as the
 * description's prose says, though its schema forgets it.
 */
import { readFileSync } from 'node:fs';
import type { Generator } from './index.js';
import { descriptionFile, descriptionModule } from './descriptions.js';
import { extractOperations, stableJson, type OperationSelection } from './openapi-table.js';

const output = 'packages/sandbox/src/figma/operations.json';

const get = (label: string, path: string): OperationSelection => ({ label, method: 'GET', path });

export const figmaOperations: OperationSelection[] = [
  get('getFile', '/v1/files/{file_key}'),
  get('getFileNodes', '/v1/files/{file_key}/nodes'),
  get('getImages', '/v1/images/{file_key}'),
  get('getComments', '/v1/files/{file_key}/comments'),
  { label: 'postComment', method: 'POST', path: '/v1/files/{file_key}/comments' },
  get('getMe', '/v1/me'),
  get('getTeamProjects', '/v1/teams/{team_id}/projects'),
  get('getProjectFiles', '/v1/projects/{project_id}/files'),
  get('getTeamComponents', '/v1/teams/{team_id}/components'),
  get('getFileComponents', '/v1/files/{file_key}/components'),
  get('getComponent', '/v1/components/{key}'),
  get('getTeamComponentSets', '/v1/teams/{team_id}/component_sets'),
  get('getFileComponentSets', '/v1/files/{file_key}/component_sets'),
  get('getComponentSet', '/v1/component_sets/{key}'),
  get('getTeamStyles', '/v1/teams/{team_id}/styles'),
  get('getFileStyles', '/v1/files/{file_key}/styles'),
  get('getStyle', '/v1/styles/{key}'),
];

const node = {
  type: 'object',
  required: ['id', 'name', 'type'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    type: { type: 'string' },
    children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
  },
  additionalProperties: true,
};

export const figmaEmulator: Generator = () => {
  const { parse } = descriptionModule<typeof import('yaml')>('yaml');
  const description = parse(readFileSync(descriptionFile('@figma/rest-api-spec/openapi/openapi.yaml'), 'utf8')) as Record<string, unknown>;
  const table = extractOperations(description, figmaOperations, {
    source: '@figma/rest-api-spec',
    replacements: { Node: node, DocumentNode: node, CanvasNode: node, SubcanvasNode: node },
  });
  const nodes = (table.operations.getFileNodes!.responseBody as { properties: { nodes: { additionalProperties: unknown } } }).properties.nodes;
  nodes.additionalProperties = { anyOf: [nodes.additionalProperties, { type: 'null' }] };
  return [{ path: output, content: stableJson(table) }];
};
