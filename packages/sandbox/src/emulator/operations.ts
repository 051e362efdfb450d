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
  /**
   * Each value (each item, for an array) is an object written as JSON text (`filter={"a":1}`): how an array
   * of objects travels in a query, where OpenAPI defines no form of its own. Text that is not JSON stays text.
   */
  json?: true;
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
  /**
   * Bodies in further content types that are read to another schema than `requestBody`, by media type. A
   * wildcard key (`text/*`, or the one of every type) stands for each media type it covers that is not named
   * otherwise, as a document's wildcard content allows; a body is read as its own content type says (JSON,
   * form fields, else text).
   */
  otherRequestBodies?: Record<string, JsonSchema>;
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

/**
 * The key of `otherRequestBodies` a body of `mediaType` is read by: the media type itself, else its type's
 * wildcard (`text/*`), else the wildcard of every type; undefined when the body is the main one's.
 */
export function otherBodyKey(operation: Operation, mediaType: string): string | undefined {
  const others = operation.otherRequestBodies;
  if (!others) return undefined;
  if (others[mediaType]) return mediaType;
  if ([operation.requestContentType ?? 'application/json', ...(operation.alternativeContentTypes ?? [])].includes(mediaType)) return undefined;
  const wildcard = `${mediaType.split('/')[0]}/*`;
  return others[wildcard] ? wildcard : others['*/*'] ? '*/*' : undefined;
}
