/**
 * TrackingApi: the toolkit catalog, from the interface in catalog/TrackingApi.json, the structural
 * request schemas of the Customer.io Track API in catalog/schemas/TrackingApi.json, and our own
 * descriptions (packages/toolkits/src/tracking/descriptions.json).
 *
 * Person identifiers are `id`, `email` or `trk_id`. A trk_id is written with its prefix (`trk_<value>`)
 * wherever it appears; the toolkit's handlers send it in Customer.io's form (`cio_<value>` in paths,
 * `cio_id: <value>` in identifier objects, `id_type=cio_id` for segments).
 */
import { resolve } from 'node:path';
import type { Annotations, JsonSchema, ToolData } from '../../packages/core/src/tool.js';
import type { GeneratedFile } from '../generate.js';
import { validatable, type TrackOperation } from './customerio-schemas.js';
import {
  authoredSchema,
  body,
  mapSchema,
  parametersOf,
  path,
  placementsOf,
  query,
  readDescriptions,
  readJson,
  toolkitFile,
  type CatalogTool,
  type Placement,
} from './shared.js';

const toolkitDir = 'packages/toolkits/src/tracking';

/** The workspace's site id is the user name and its Track API key the password (HTTP Basic). */
const SITE_ID = 'TRACKING_SITE_ID';
const API_KEY = 'TRACKING_API_KEY';

/** Where each catalog parameter goes in the Track API (the reference catalog leaves it out). */
const placements: Record<string, Record<string, Placement>> = {
  AddDeviceToCustomerProfile: { unique_person_identifier: path('identifier') },
  AddPeopleToSegment: { segment_identifier: path('segment_id'), identifier_type: query('id_type') },
  BatchProcessRequests: {},
  DeleteCustomer: { customer_identifier: path('identifier') },
  GetTrackApiRegion: {},
  GlobalUnsubscribeUser: { delivery_id_for_unsubscription: path('delivery_id'), set_unsubscribed_attribute: body('unsubscribe') },
  ManageEntity: {},
  MergeCustomerProfiles: {},
  RemoveCustomerDevice: { customer_identifier: path('identifier'), device_unique_id: path('device_id') },
  RemoveUserFromSegment: { segment_identifier: path('segment_id'), identification_type: query('id_type') },
  ReportCustomMetrics: {},
  SendCustomerEvent: { customer_identifier: path('identifier') },
  SubmitFormResponse: { form_identifier: path('form_id') },
  SuppressCustomerProfile: { unique_person_identifier: path('identifier') },
  TrackAnonymousEvent: {},
  UnsuppressCustomerProfile: { customer_identifier: path('identifier') },
  UpdateOrAddPerson: { person_identifier: path('identifier') },
};

/**
 * Where the HTTP method misleads: these POSTs delete (a merge deletes the secondary person, suppression
 * deletes the profile, batch and entity requests may delete), or can be repeated with the same result.
 */
const annotationOverrides: Record<string, Partial<Annotations>> = {
  MergeCustomerProfiles: { destructiveHint: true },
  SuppressCustomerProfile: { destructiveHint: true, idempotentHint: true },
  UnsuppressCustomerProfile: { idempotentHint: true },
  BatchProcessRequests: { destructiveHint: true },
  ManageEntity: { destructiveHint: true },
  AddPeopleToSegment: { idempotentHint: true },
  RemoveUserFromSegment: { destructiveHint: true, idempotentHint: true },
  GlobalUnsubscribeUser: { idempotentHint: true },
};

const trkIdSchema: JsonSchema = {
  type: 'string',
  pattern: '^trk_.+',
  description: "The person's trk_id, with its prefix: trk_<value>.",
};

/** Customer.io's `cio_id` identifier field, wherever a schema has one, becomes our `trk_id`. */
const withTrkIds = (schema: JsonSchema): JsonSchema =>
  mapSchema(schema, (node) => {
    const properties = node.properties as Record<string, JsonSchema> | undefined;
    if (!properties?.cio_id) return node;
    const { cio_id: _, ...others } = properties;
    const required = node.required as string[] | undefined;
    return {
      ...node,
      properties: { ...others, trk_id: trkIdSchema },
      ...(required && { required: required.map((name) => (name === 'cio_id' ? 'trk_id' : name)) }),
    };
  }) as JsonSchema;

export function generateTracking(sharedDir: string): GeneratedFile[] {
  const catalog = readJson(resolve(sharedDir, 'catalog/TrackingApi.json')) as {
    toolkit: string;
    default_base_url: string;
    tools: Array<CatalogTool & { secrets: string[] }>;
  };
  const structural = readJson(resolve(sharedDir, 'catalog/schemas/TrackingApi.json')) as Record<string, TrackOperation[]>;
  const descriptions = readDescriptions(toolkitDir);

  const tools = catalog.tools.map((tool): ToolData => {
    const where = (text: string) => `TrackingApi.${tool.name}: ${text}`;
    const text = descriptions.tools[tool.name];
    const operation = structural[tool.name]?.[0];
    if (!text) throw new Error(where('no description'));
    const placed = placementsOf(tool, placements[tool.name], where);
    if (!operation || operation.method !== tool.method || operation.path !== tool.path) throw new Error(where('no structural schema for its method and path'));

    const data: ToolData = {
      name: tool.name,
      title: text.title,
      description: text.description,
      parameters: parametersOf(tool, text, where, { placed }),
      output: { description: text.output },
      requirements: { secrets: tool.secrets.map((key) => ({ key })) },
      http: {
        method: tool.method,
        path: tool.path,
        ...(Object.values(placed).some((placement) => placement.in === 'body') && { contentType: 'application/json' }),
        auth: { scheme: 'Basic', secrets: [SITE_ID, API_KEY] },
      },
    };
    if (tool.mode_driven) {
      if (!operation.request_body) throw new Error(where('mode-driven without a request schema'));
      data.requestBody = {
        contentType: operation.request_content_type ?? 'application/json',
        schema: authoredSchema(withTrkIds(validatable(operation.request_body)), text.body ?? {}, `Request body of ${tool.name}.`),
      };
    }
    if (annotationOverrides[tool.name]) data.annotations = annotationOverrides[tool.name];
    return data;
  });

  return [toolkitFile(toolkitDir, catalog, descriptions, tools)];
}
