/**
 * A worker's ToolDefinition as a core Tool, so that listings and provider formats treat remote tools as
 * they treat built-in ones. The tool has no `http` binding: its worker runs it. Parameter schemas come
 * from `value_schema` (type, array item type, string enums): the worker still validates the full input.
 */
import type { JsonSchema, Parameter, Requirements, Tool, ToolkitInfo } from '@quiver/core';

/** The fields of a ToolDefinition a worker must send; the rest is optional. */
export interface RemoteToolDefinition {
  name: string;
  description?: string;
  toolkit: { name: string; description?: string | null; version?: string | null };
  input?: { parameters?: RemoteParameter[] };
  output?: { description?: string | null } | null;
  requirements?: {
    authorization?: { provider_id?: string | null; id?: string | null; oauth2?: { scopes?: string[] | null } | null } | null;
    secrets?: Array<{ key: string }> | null;
  } | null;
}

interface RemoteParameter {
  name: string;
  required?: boolean;
  description?: string | null;
  value_schema?: { val_type?: string; inner_val_type?: string | null; enum?: string[] | null } | null;
}

const simpleTypes = new Set(['string', 'integer', 'number', 'boolean']);

export function toolFromDefinition(definition: RemoteToolDefinition): Tool {
  const toolkit: ToolkitInfo = {
    name: definition.toolkit.name,
    version: definition.toolkit.version || '0.0.0',
    description: definition.toolkit.description ?? '',
  };
  return {
    name: definition.name,
    description: definition.description ?? '',
    parameters: (definition.input?.parameters ?? []).map(parameterFrom),
    output: { description: definition.output?.description ?? '' },
    requirements: requirementsFrom(definition.requirements),
    toolkit,
  };
}

/** Whether a value from a worker looks like a ToolDefinition this engine can serve. */
export function isToolDefinition(value: unknown): value is RemoteToolDefinition {
  const candidate = value as RemoteToolDefinition | null;
  return typeof candidate?.name === 'string' && typeof candidate.toolkit?.name === 'string';
}

function parameterFrom(parameter: RemoteParameter): Parameter {
  return {
    name: parameter.name,
    description: parameter.description ?? '',
    required: parameter.required === true,
    schema: schemaOf(parameter.value_schema?.val_type, parameter.value_schema?.inner_val_type, parameter.value_schema?.enum),
  };
}

function schemaOf(valType: string | undefined, innerValType?: string | null, values?: string[] | null): JsonSchema {
  if (valType === 'array') return { type: 'array', ...(innerValType && { items: schemaOf(innerValType) }) };
  if (valType && simpleTypes.has(valType)) {
    // Enum values arrive as strings; only a string parameter can be held to them exactly.
    return { type: valType, ...(valType === 'string' && values?.length && { enum: values }) };
  }
  return {};
}

function requirementsFrom(requirements: RemoteToolDefinition['requirements']): Requirements {
  const authorization = requirements?.authorization;
  const provider = authorization?.provider_id ?? authorization?.id;
  const secrets = (requirements?.secrets ?? []).map(({ key }) => ({ key }));
  return {
    ...(provider && { oauth2: { provider, scopes: authorization?.oauth2?.scopes ?? [] } }),
    ...(secrets.length && { secrets }),
  };
}
