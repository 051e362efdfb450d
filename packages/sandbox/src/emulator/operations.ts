/** The shape of a generated operation table: what an emulator accepts and answers, per operation. */

export type JsonSchema = { [keyword: string]: unknown };

export interface QueryParameter {
  required: boolean;
  schema: JsonSchema;
  /**
   * How an array parameter travels, as OpenAPI's `explode` says: repeated keys (`ids=a&ids=b`) unless
   * this is false, when it is one comma-separated value (`ids=a,b`). Either way a handler reads an array.
   */
  explode?: false;
}

export interface Operation {
  method: string;
  /** Upstream path template, `{name}` for each path parameter. */
  path: string;
  pathParameters: Record<string, JsonSchema>;
  /** Path parameters whose value may span several segments (git refs like `heads/main`, file paths). */
  multiSegmentParameters?: string[];
  queryParameters: Record<string, QueryParameter>;
  /** Present exactly when the operation takes a request body. */
  requestContentType?: string;
  /** Further content types the body may come in, parsed by the same rules (e.g. text/x-markdown besides text/plain). */
  alternativeContentTypes?: string[];
  requestBody?: JsonSchema;
  /** The body may be left out altogether (an empty request body is then fine). */
  requestBodyOptional?: boolean;
  successStatus: number;
  /** Absent when the operation answers without a body. */
  responseBody?: JsonSchema;
  /** The success body's media type when it is not JSON, e.g. text/html; such bodies are sent as text, or as bytes when a handler answers a Buffer. */
  responseContentType?: string;
  /** Other documented successes, by status: e.g. 200 for a reaction that exists beside 201 for a new one. */
  otherSuccesses?: Record<number, { responseBody?: JsonSchema; responseContentType?: string }>;
}

export interface OperationTable {
  /** Shared subschemas, referenced from bodies as `#/$defs/Name`. */
  $defs: Record<string, JsonSchema>;
  /** By operation label. */
  operations: Record<string, Operation>;
}
