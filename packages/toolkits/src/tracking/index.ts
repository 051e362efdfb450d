/**
 * Customer.io Track API. Every tool is its binding (HTTP Basic with the workspace's site id and API
 * key); handlers only rewrite person identifiers from the toolkit's form (trk_<value>) into
 * Customer.io's (cio_) before the request is built.
 */
import { callUpstream, defineToolkit, parseRequestBody, toolError, type ToolHandler, type ToolResult } from '@quiver/core';
import { bindingsOf } from '../bindings.js';
import { readCatalog } from '../read-catalog.js';
import { identifierTypes, pathIdentifier, trkValue, upstreamIdentifiers } from './identifiers.js';

const data = readCatalog(new URL('./catalog.json', import.meta.url));
const tool = bindingsOf(data);

const badInput = (name: string, message: string): ToolResult => toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `Invalid input for ${name}: ${message}.`);

/** The person in the path, `trk_<value>` sent as `cio_<value>`. */
const pathPerson =
  (name: string, parameter: string): ToolHandler =>
  async (input, context) => {
    const value = input[parameter];
    if (typeof value !== 'string') return callUpstream(tool(name), input, context);
    if (trkValue(value) === '') return badInput(name, `parameter '${parameter}' must be trk_ followed by the trk_id value`);
    return callUpstream(tool(name), { ...input, [parameter]: pathIdentifier(value) }, context);
  };

/** Identifier objects in the body (`{"trk_id": "trk_<value>"}`) sent as `{"cio_id": "<value>"}`. */
const bodyPeople =
  (name: string): ToolHandler =>
  async (input, context) => {
    const parsed = parseRequestBody(tool(name), input);
    if ('error' in parsed) return parsed;
    return callUpstream(tool(name), input, context, { body: upstreamIdentifiers(parsed.body) });
  };

/**
 * A segment list: the identifier type (id, email or trk_id; the catalog declares no enum) is checked
 * here, and with trk_id each listed value must be `trk_<value>` and is sent bare as a cio_id.
 */
const segmentPeople =
  (name: string, typeParameter: string): ToolHandler =>
  async (input, context) => {
    // Optional, default id, though a mode-driven execute needs every query parameter.
    const type = input[typeParameter] ?? 'id';
    if (!identifierTypes[type as string]) return badInput(name, `parameter '${typeParameter}' must be one of: ${Object.keys(identifierTypes).join(', ')}`);
    // Sent in Customer.io's terms: id_type=cio_id for trk_id.
    const typed = { ...input, [typeParameter]: identifierTypes[type as string] };
    const parsed = parseRequestBody(tool(name), typed);
    if ('error' in parsed) return parsed;
    const body = parsed.body as { ids: string[] };
    if (type !== 'trk_id') return callUpstream(tool(name), typed, context, parsed);
    const wrong = body.ids.findIndex((id) => !trkValue(id));
    if (wrong !== -1) {
      return toolError('TOOL_RUNTIME_RETRY', `request_body /ids/${wrong} must be written trk_<value> when ${typeParameter} is trk_id.`, {
        additional_prompt_content: 'Write each trk_id with its prefix, e.g. "trk_a3f9", or change the identifier type.',
      });
    }
    const ids = body.ids.map((id) => trkValue(id)!);
    return callUpstream(tool(name), typed, context, { body: { ...body, ids } });
  };

export const trackingApi = defineToolkit(data, {
  AddDeviceToCustomerProfile: pathPerson('AddDeviceToCustomerProfile', 'unique_person_identifier'),
  DeleteCustomer: pathPerson('DeleteCustomer', 'customer_identifier'),
  RemoveCustomerDevice: pathPerson('RemoveCustomerDevice', 'customer_identifier'),
  SendCustomerEvent: pathPerson('SendCustomerEvent', 'customer_identifier'),
  SuppressCustomerProfile: pathPerson('SuppressCustomerProfile', 'unique_person_identifier'),
  UnsuppressCustomerProfile: pathPerson('UnsuppressCustomerProfile', 'customer_identifier'),
  UpdateOrAddPerson: pathPerson('UpdateOrAddPerson', 'person_identifier'),
  MergeCustomerProfiles: bodyPeople('MergeCustomerProfiles'),
  BatchProcessRequests: bodyPeople('BatchProcessRequests'),
  ManageEntity: bodyPeople('ManageEntity'),
  AddPeopleToSegment: segmentPeople('AddPeopleToSegment', 'identifier_type'),
  RemoveUserFromSegment: segmentPeople('RemoveUserFromSegment', 'identification_type'),
});
