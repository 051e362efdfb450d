/**
 * What a server (MCP over stdio, the engine) offers and how each call through it is guarded and
 * shaped: the tool selection and read-only rule, confirmation of destructive calls, the `fields`
 * projection and the response budget. The listing and the dispatch use the same policy, so what a
 * model is shown is exactly what it may call.
 */
import { confirmName, confirmSchema, declinedByPerson, needsConfirmation, unconfirmed, type ConfirmWithPerson } from './confirmation.js';
import { toolError, type NextPage, type ToolResult } from './errors.js';
import { toMcpTool } from './formats.js';
import { inputSchema } from './input.js';
import { capResult, defaultMaxResponseTokens, fieldPathsOf, fieldsName, fieldsSchema, isEmptyProjection, parseFields, selectFields } from './response.js';
import { withPagingKeys } from './paging.js';
import { selectionRule, type ToolSelection } from './selection.js';
import type { BuiltDefinitions, JsonSchema, ListingRevision, Tool, ToolkitInfo } from './tool.js';

export interface ServingOptions extends ToolSelection {
  /** Destructive tools take a `confirm` argument and refuse to run unless it is true. */
  confirmDestructive?: boolean;
  /** Results estimated over this many tokens are cut; 0 turns cutting off. Default 20,000. */
  maxResponseTokens?: number;
  /**
   * Where the tools' icons are served: `<iconBaseUrl>/<Toolkit>/icon.svg` (the engine: its public URL and
   * `/v1/toolkits`). Without it (stdio, which serves no files) each tool carries its toolkit's icon as a data URI.
   */
  iconBaseUrl?: string;
}

export type McpToolDefinition = ReturnType<typeof toMcpTool>;

/** The dialect tool schemas declare to a 2026-07-28 client (older clients assume it, and get none). */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** A served definition as a 2026-07-28 client is listed it: its input schema declares its dialect first. */
export function in2026<T extends { inputSchema: object }>(definition: T): T {
  return { ...definition, inputSchema: { $schema: JSON_SCHEMA_2020_12, ...definition.inputSchema } };
}

export class ServingPolicy {
  private readonly refusalOf: ReturnType<typeof selectionRule>;
  private readonly schemas = new WeakMap<Tool, JsonSchema>();
  private readonly narrowings = new Map<string, ServingPolicy>();

  constructor(readonly options: ServingOptions = {}) {
    this.refusalOf = selectionRule(options);
  }

  /**
   * This policy with some options replaced. The same change always answers the same policy, so
   * the narrowed policy's schema cache lives as long as this one.
   */
  narrowed(change: ServingOptions): ServingPolicy {
    const key = JSON.stringify(change);
    let policy = this.narrowings.get(key);
    if (!policy) {
      policy = new ServingPolicy({ ...this.options, ...change });
      this.narrowings.set(key, policy);
    }
    return policy;
  }

  get maxResponseTokens(): number {
    return this.options.maxResponseTokens ?? defaultMaxResponseTokens;
  }

  offers(tool: Tool): boolean {
    return this.refusalOf(tool) === undefined;
  }

  /** The tool's own input schema plus the server's parameters: `fields`, and `confirm` where required. */
  inputSchema(tool: Tool): JsonSchema {
    let schema = this.schemas.get(tool);
    if (!schema) {
      const own = inputSchema(tool);
      const properties = { ...(own.properties as Record<string, JsonSchema>) };
      if (takesFields(tool)) properties[fieldsName] = fieldsSchema;
      const confirm = this.confirms(tool);
      if (confirm) properties[confirmName] = confirmSchema;
      schema = { ...own, properties, ...(confirm && { required: [...(own.required as string[]), confirmName] }) };
      this.schemas.set(tool, schema);
    }
    return schema;
  }

  /** The tool as `tools/list` serves it: the schema with the server's parameters, and icons as this server gives them. */
  toMcpTool(tool: Tool): McpToolDefinition {
    return { ...toMcpTool(tool, { iconBaseUrl: this.options.iconBaseUrl }), inputSchema: this.inputSchema(tool) };
  }

  /**
   * `toMcpTool` of each tool as the bytes of its JSON text, as a client of `revision` is listed it (`in2026`): the
   * text the build wrote for a tool (see ToolkitInfo.definitions) where this policy serves it as built, with no
   * `confirm` and icons inline, and otherwise the definition written out now.
   */
  definitionsJson(tools: readonly Tool[], revision?: ListingRevision): Uint8Array[] {
    const built = this.builtDefinitions(revision);
    return tools.map((tool) => built(tool.toolkit)?.get(tool.name) ?? this.writtenNow(tool, revision));
  }

  /**
   * The listing of `tools` as `definitionsJson` gives it, as the items of a JSON array in parts, each one or more
   * definitions apart by commas: where the listing holds every tool of a toolkit in the order the build wrote
   * them, their definitions are one part, which a listing of every tool sends without a step for each.
   */
  listingJson(tools: readonly Tool[], revision?: ListingRevision): Uint8Array[] {
    const built = this.builtDefinitions(revision);
    const parts: Uint8Array[] = [];
    for (let i = 0; i < tools.length; ) {
      const { toolkit } = tools[i]!;
      const definitions = built(toolkit);
      const names = definitions?.names ?? [];
      if (names.length > 0 && names.every((name, k) => tools[i + k]?.toolkit === toolkit && tools[i + k]!.name === name)) {
        parts.push(definitions!.all);
        i += names.length;
      } else {
        parts.push(definitions?.get(tools[i]!.name) ?? this.writtenNow(tools[i]!, revision));
        i++;
      }
    }
    return parts;
  }

  /** Each toolkit's definitions as the build wrote them, read once for a listing, where this policy serves them so. */
  private builtDefinitions(revision?: ListingRevision): (toolkit: ToolkitInfo) => BuiltDefinitions | undefined {
    if (this.options.confirmDestructive || this.options.iconBaseUrl !== undefined) return () => undefined;
    const read = new Map<ToolkitInfo, BuiltDefinitions | undefined>();
    return (toolkit) => {
      if (!read.has(toolkit)) read.set(toolkit, toolkit.definitions?.(revision));
      return read.get(toolkit);
    };
  }

  private writtenNow(tool: Tool, revision?: ListingRevision): Uint8Array {
    return Buffer.from(JSON.stringify(this.toListedTool(tool, revision)));
  }

  /** `toMcpTool` as a client of `revision` is listed it (`in2026`), built now. */
  toListedTool(tool: Tool, revision?: ListingRevision): McpToolDefinition {
    return revision ? in2026(this.toMcpTool(tool)) : this.toMcpTool(tool);
  }

  /**
   * One call: refused when the server does not offer the tool or it is unconfirmed (by the model's
   * `confirm`, or by the person through `confirmWithPerson` where the caller can ask them); otherwise
   * the server's arguments are taken out, the rest go to `call`, and the value is projected and capped.
   */
  async run(
    tool: Tool,
    input: unknown,
    call: (args: Record<string, unknown>) => Promise<ToolResult>,
    confirmWithPerson?: ConfirmWithPerson,
  ): Promise<ToolResult> {
    const refused = this.refusalOf(tool);
    if (refused) return refused;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', 'The input must be a JSON object of parameters.');
    }
    const args = { ...(input as Record<string, unknown>) };
    // A null server argument is one left out, as for the tool's own (OpenAI's strict mode sends them).
    if (args[fieldsName] === null && takesFields(tool)) delete args[fieldsName];
    let fields: string[] | undefined;
    if (takesFields(tool) && args[fieldsName] !== undefined) {
      const parsed = parseFields(args[fieldsName]);
      if ('error' in parsed) return parsed;
      fields = parsed;
      delete args[fieldsName];
    }
    if (this.confirms(tool)) {
      const refusal = unconfirmed(tool, args);
      delete args[confirmName];
      if (refusal) {
        // Where the caller can ask the person, their own answer stands in for the model's `confirm`.
        const answer = await confirmWithPerson?.(tool, args);
        if (answer === false) return declinedByPerson(tool);
        if (answer !== true) return refusal;
      }
    }

    const result = await call(args);
    if ('error' in result) return result;
    return this.shape(tool, result, args, fields);
  }

  /**
   * The value projected to `fields` and capped to the budget, its paging kept: a selection keeps the
   * paging keys (even one that matches nothing), and a cut that leaves items out replaces the call's
   * next page with one that resumes at the first of them.
   */
  private shape(
    tool: Tool,
    result: { value: unknown; note?: string; next_page?: NextPage },
    args: Record<string, unknown>,
    fields: string[] | undefined,
  ): ToolResult {
    let value = result.value;
    if (fields) {
      const projected = selectFields(value, fields);
      const selected = withPagingKeys(projected, value);
      if (isEmptyProjection(projected)) return withPaging({ value: selected, note: noneSelected(fields, value) }, result);
      value = selected;
    }
    const capped = capResult(value, tool, this.maxResponseTokens, takesFields(tool), { args, next_page: result.next_page });
    // Items left out: the call's next page (and its note) would skip them; the cut's own says where to resume.
    if (capped.leftOut) return { value: capped.value, note: capped.note!, ...(capped.leftOut.next_page && { next_page: capped.leftOut.next_page }) };
    return withPaging({ value: capped.value, ...(capped.note && { note: capped.note }) }, result);
  }

  private confirms(tool: Tool): boolean {
    return this.options.confirmDestructive === true && needsConfirmation(tool);
  }
}

/** The shaped result with the call's next-page hint and its note, after any note of the shaping. */
function withPaging(shaped: { value: unknown; note?: string }, call: { note?: string; next_page?: NextPage }): ToolResult {
  if (!call.next_page) return shaped;
  const note = [shaped.note, call.note].filter(Boolean).join('\n');
  return { ...shaped, next_page: call.next_page, ...(note && { note }) };
}

/**
 * What a selection that matched nothing says: the paths that end as the fields asked for (`subject` is
 * `messages.subject` in a list), and the paths the result has, in the dotted form `fields` takes.
 */
function noneSelected(fields: string[], value: unknown): string {
  const asked = new Set(fields.map((field) => lastSegment(field).toLowerCase()));
  const meant = fieldPathsOf(value, 500, 4)
    .filter((path) => asked.has(lastSegment(path).toLowerCase()))
    .slice(0, 10);
  const paths = fieldPathsOf(value);
  return (
    `None of the fields ${fields.join(', ')} is in the result.` +
    (meant.length ? ` Did you mean ${meant.join(', ')}?` : '') +
    (paths.length ? ` Paths it has include: ${paths.join(', ')}.` : '')
  );
}

const lastSegment = (path: string) => path.slice(path.lastIndexOf('.') + 1);

/**
 * The server adds `fields` where the answer has fields to pick, unless the tool has a parameter of that name itself.
 * An answer declared as a string, number or boolean has none, nor one its output describes as nothing: an empty
 * body or `{}` (the model gets `{success, status}`), an accepted 202, a redirect. The catalogs word those answers
 * one of these ways.
 */
const takesFields = (tool: Tool): boolean => {
  // Asked several times a call: answered once per tool (its description is matched against a pattern).
  let takes = fieldsTaken.get(tool);
  if (takes === undefined) {
    takes = answerHasFields(tool.output) && !tool.parameters.some((parameter) => parameter.name === fieldsName);
    fieldsTaken.set(tool, takes);
  }
  return takes;
};

const fieldsTaken = new WeakMap<Tool, boolean>();

const scalarTypes = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const answerWithoutFields =
  /^(Nothing: |No (content|body)( on success)?\.$|An empty JSON object|Accepted \(202\)|A redirect \(302\)|Confirmation \(success and HTTP status|success and the HTTP status)/;

const answerHasFields = (output: Tool['output']): boolean => !scalarTypes.has(output.schema?.type as string) && !answerWithoutFields.test(output.description);
