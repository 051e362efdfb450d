/** The shape of a generated operation table: what an emulator accepts and answers, per operation. */

export type JsonSchema = { [keyword: string]: unknown };

export interface QueryParameter {
  required: boolean;
  /** Array parameters are sent as repeated keys (`ids=a&ids=b`). */
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** Upstream path template, `{name}` for each path parameter. */
  path: string;
  pathParameters: Record<string, JsonSchema>;
  queryParameters: Record<string, QueryParameter>;
  /** Present exactly when the operation takes a request body. */
  requestContentType?: string;
  requestBody?: JsonSchema;
  successStatus: number;
  /** Absent when the operation answers without a body. */
  responseBody?: JsonSchema;
}

export interface OperationTable {
  /** Shared subschemas, referenced from bodies as `#/$defs/Name`. */
  $defs: Record<string, JsonSchema>;
  /** By operation label. */
  operations: Record<string, Operation>;
}
