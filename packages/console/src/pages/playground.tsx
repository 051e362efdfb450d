/**
 * Run a tool by hand: a form from its input schema, a user, `fields`, and the result. Mode-driven
 * tools go in two steps: get the request-body schema, then write the body, checked before it is sent.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useFollowedAuthorization, type Authorization } from '../authorization.js';
import { useSearch } from '../tool-index.js';
import { CopyButton } from '../copy.js';
import { collect, SchemaFields, type Values } from '../form.js';
import { skeleton } from '../skeleton.js';
import { asArcadeJs, asCurl, asMcpCall, type PlaygroundCall } from '../snippets.js';
import { isModeDriven, loadTool, type JsonSchema, type ToolDefinition } from '../tool.js';
import { ErrorDetails, ErrorNote, JsonView, Loading, Section, useLoad, UserField, useUserId } from '../ui.js';
import { validate } from '../validate.js';

export interface ExecuteResponse {
  execution_id: string;
  status: string;
  success: boolean;
  duration: number;
  output: {
    value?: unknown;
    error?: {
      kind: string;
      message: string;
      can_retry: boolean;
      retry_after_ms?: number;
      additional_prompt_content?: string;
      developer_message?: string;
    };
    authorization?: Authorization;
  };
}

export function PlaygroundPage({ name }: { name: string | undefined }) {
  return (
    <div>
      <h1>Playground</h1>
      <ToolPicker current={name} />
      {name && <PlaygroundFor name={name} />}
    </div>
  );
}

function ToolPicker({ current }: { current: string | undefined }) {
  const [text, setText] = useState('');
  const { answer, error } = useSearch(text);
  const names = answer?.names.slice(0, 8) ?? [];
  return (
    <div class="picker">
      <label class="field" for="playground-search">
        <span>{current ? 'Another tool' : 'Find a tool'}</span>
        <input id="playground-search" type="search" value={text} placeholder="search tools" onInput={(event) => setText(event.currentTarget.value)} />
      </label>
      <ErrorNote error={error} />
      {names.length > 0 && (
        <ul class="plain picks">
          {names.map((found) => (
            <li key={found}>
              <a href={`#/playground/${encodeURIComponent(found)}`} onClick={() => setText('')}>
                {found}
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function PlaygroundFor({ name }: { name: string }) {
  const [userId] = useUserId();
  // Each answer with the name it was loaded for: while another tool's loads, the one before (or its error) is
  // not shown under this name, where a click would run the tool before.
  const tool = useLoad(
    () =>
      loadTool(name, userId).then(
        (definition) => ({ name, definition }),
        (error: unknown) => ({ name, error }),
      ),
    [name],
  );
  const loaded = tool.data?.name === name ? tool.data : undefined;
  if (!loaded) return <Loading what="the tool" />;
  if ('error' in loaded) return <ErrorNote error={loaded.error} />;
  return <Runner key={name} tool={loaded.definition} />;
}

/** What the playground holds for one tool in this tab: the form's values, `fields` and the body. */
interface Kept {
  values: Values;
  fields: string;
  body: string;
}

/** A tool's inputs, kept for the tab (not a credential): a reload, or a visit to another tool and back, keeps them. */
function useKept(tool: string): [Kept, (change: Partial<Kept>) => void] {
  const storageKey = `quiver.playground.${tool}`;
  const [kept, setKept] = useState<Kept>(() => {
    try {
      return { values: {}, fields: '', body: '', ...(JSON.parse(sessionStorage.getItem(storageKey) ?? '{}') as Partial<Kept>) };
    } catch {
      return { values: {}, fields: '', body: '' };
    }
  });
  useEffect(() => sessionStorage.setItem(storageKey, JSON.stringify(kept)), [kept]);
  return [kept, (change) => setKept((previous) => ({ ...previous, ...change }))];
}

/** The body's problems against its schema, each naming its JSON pointer; none for an empty body. */
function bodyProblems(body: string, schema: JsonSchema | undefined): string[] {
  if (!body.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (caught) {
    return [`request_body is not valid JSON: ${(caught as Error).message}`];
  }
  return schema ? validate(schema, parsed).map((problem) => `request_body ${problem.pointer} ${problem.message}`) : [];
}

function Runner({ tool }: { tool: ToolDefinition }) {
  const schema = tool.formatted_schema.mcp.inputSchema;
  const modeDriven = isModeDriven(schema);
  const omit = modeDriven ? ['mode', 'request_body', 'fields'] : ['fields'];
  // A mode-driven tool's path and query parameters (all it has besides the mode and the body) are optional
  // for step 1 and required for step 2: the form marks them as the run that sends the body needs them.
  const runSchema = useMemo(
    () => (modeDriven ? { ...schema, required: Object.keys(schema.properties ?? {}).filter((name) => !omit.includes(name)) } : schema),
    [schema],
  );
  const [userId] = useUserId();
  const [kept, keep] = useKept(tool.qualified_name);
  const { values, fields, body } = kept;
  const [bodySchema, setBodySchema] = useState<JsonSchema | undefined>();
  const [problems, setProblems] = useState<string[]>([]);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<ExecuteResponse | undefined>();
  // The call that waits for the user's authorization, sent again once access is allowed.
  const waiting = useRef<PlaygroundCall | undefined>();
  const followed = useFollowedAuthorization(() => {
    const call = waiting.current;
    waiting.current = undefined;
    if (call) void send(call);
  });
  const typedProblems = useMemo(() => bodyProblems(body, bodySchema), [body, bodySchema]);

  /** The call the form makes now, and what is wrong with it; `check` says which parameters it requires. */
  function callOf(extra: Record<string, unknown>, check: JsonSchema): { call: PlaygroundCall; problems: string[] } {
    const { input, problems: found } = collect(check, values, omit);
    const fieldList = fields
      .split(',')
      .map((path) => path.trim())
      .filter(Boolean);
    return {
      call: {
        tool_name: tool.qualified_name,
        input: { ...input, ...extra, ...(fieldList.length && { fields: fieldList }) },
        ...(userId && { user_id: userId }),
      },
      problems: found,
    };
  }

  /** The call as it would run now, for the snippets: step 2's where a body is written, else step 1's. */
  const currentCall = () =>
    callOf(
      modeDriven ? (body.trim() ? { mode: 'execute', request_body: body } : { mode: 'get_request_schema' }) : {},
      modeDriven && body.trim() ? runSchema : schema,
    ).call;

  async function send(call: PlaygroundCall): Promise<ExecuteResponse | undefined> {
    setRunning(true);
    setError(undefined);
    try {
      const answer = await api<ExecuteResponse>('POST', '/tools/execute', call);
      setResult(answer);
      const authorization = answer.output.authorization;
      // Refused for want of the user's authorization: follow it, and send the same call once it completes.
      waiting.current = !answer.success && authorization?.status === 'pending' ? call : undefined;
      if (waiting.current) followed.follow(authorization);
      return answer;
    } catch (caught) {
      setError(caught);
    } finally {
      setRunning(false);
    }
  }

  async function run(extra: Record<string, unknown>, check: JsonSchema, checks: string[] = []) {
    const { call, problems: found } = callOf(extra, check);
    const all = [...found, ...checks];
    setProblems(all);
    if (all.length) return;
    // A call made by hand starts afresh: no authorization is awaited for an earlier one.
    waiting.current = undefined;
    followed.follow(undefined);
    return send(call);
  }

  async function getSchema() {
    const answer = await run({ mode: 'get_request_schema' }, schema);
    const value = answer?.output.value as { request_body_schema?: JsonSchema } | undefined;
    const fetched = value?.request_body_schema;
    if (!fetched) return;
    setBodySchema(fetched);
    // An empty body starts as the schema's skeleton: what must be filled in, each with a value of its type.
    if (!body.trim()) keep({ body: JSON.stringify(skeleton(fetched), null, 2) });
  }

  function executeBody() {
    const checks = body.trim() ? bodyProblems(body, bodySchema) : ['request_body is required for step 2: write the body the schema describes'];
    void run({ mode: 'execute', request_body: body }, runSchema, checks);
  }

  const requirement = tool.requirements.authorization;
  return (
    <>
      <h2 class="tool-title">
        <a href={`#/tools/${encodeURIComponent(tool.qualified_name)}`}>{tool.qualified_name}</a>
      </h2>
      <p class="lead">{tool.description}</p>
      <form
        class="card"
        aria-label="Tool input"
        onSubmit={(event) => {
          event.preventDefault();
          if (modeDriven) executeBody();
          else void run({}, schema);
        }}
      >
        <UserField id="playground-user" required={requirement !== undefined} />
        {modeDriven && runSchema.required?.length ? (
          <p class="muted">Fields marked * are required for step 2, the run that sends the body; step 1 needs none of them.</p>
        ) : null}
        <SchemaFields schema={runSchema} values={values} omit={omit} onChange={(path, value) => keep({ values: { ...values, [path]: value } })} />
        <div class="field">
          <label for="playground-fields">
            fields <span class="muted">optional: dotted paths, comma-separated, to project the result</span>
          </label>
          <input id="playground-fields" value={fields} placeholder="id, owner.login" onInput={(event) => keep({ fields: event.currentTarget.value })} />
        </div>
        {modeDriven ? (
          <div class="steps">
            <p>This tool takes its request body as JSON. First get the body's schema, then write the body.</p>
            <button type="button" onClick={() => void getSchema()} disabled={running}>
              Step 1: get the request schema
            </button>
            {bodySchema && (
              <details class="schema" open>
                <summary>Request-body schema</summary>
                <JsonView value={bodySchema} label="Request-body schema" />
              </details>
            )}
            <div class="field">
              <label for="playground-body">request_body (JSON)</label>
              <textarea
                id="playground-body"
                rows={8}
                class="mono"
                value={body}
                aria-describedby="playground-body-check"
                onInput={(event) => keep({ body: event.currentTarget.value })}
              />
              <BodyCheck id="playground-body-check" body={body} schema={bodySchema} problems={typedProblems} />
            </div>
            <button type="submit" disabled={running || !bodySchema}>
              Step 2: validate and run
            </button>
          </div>
        ) : (
          <button type="submit" disabled={running}>
            {running ? 'Running…' : 'Run'}
          </button>
        )}
        {problems.length > 0 && (
          <div class="error" role="alert">
            <p>Nothing was sent. Fix:</p>
            <ul>
              {problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          </div>
        )}
        <div class="snippets">
          <CopyButton text={() => asCurl(currentCall(), location.origin)} label="Copy as curl">
            Copy as curl
          </CopyButton>
          <CopyButton text={() => asArcadeJs(currentCall(), location.origin)} label="Copy as TypeScript (arcadejs)">
            Copy as TypeScript (arcadejs)
          </CopyButton>
          <CopyButton text={() => asMcpCall(currentCall(), tool.formatted_schema.mcp.name)} label="Copy as MCP call">
            Copy as MCP call
          </CopyButton>
          <small class="muted">
            The key comes from <code>QUIVER_API_KEY</code>; over MCP the user goes in the <code>Quiver-User-ID</code> header.
          </small>
        </div>
      </form>
      <ErrorNote error={error ?? followed.error} />
      {followed.authorization && <AuthorizationWait authorization={followed.authorization} scopes={requirement?.oauth2?.scopes} />}
      {result && <ResultView result={result} />}
    </>
  );
}

/** Whether the body typed so far matches its schema, said as it is typed. */
function BodyCheck({ id, body, schema, problems }: { id: string; body: string; schema: JsonSchema | undefined; problems: string[] }) {
  let said = '';
  if (!schema) said = 'Step 1 fetches the schema the body is checked against.';
  else if (!body.trim()) said = 'Write the body, or start again from the schema: empty the box and run step 1.';
  else if (!problems.length) said = '✓ The body matches the schema.';
  return (
    <div id={id} class={problems.length ? 'bad' : 'muted'} aria-live="polite">
      {problems.length ? (
        <ul class="plain">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      ) : (
        <small>{said}</small>
      )}
    </div>
  );
}

/** The user's authorization the call waits for: with whom, which scopes, where to allow it, and what happens next. */
function AuthorizationWait({ authorization, scopes = authorization.scopes }: { authorization: Authorization; scopes?: string[] }) {
  const { user_id, provider_id, status, url } = authorization;
  const scopeText = scopes.length ? ` with the scopes ${scopes.join(', ')}` : '';
  return (
    <div class="notice" role="status" aria-live="polite">
      {status === 'pending' && (
        <>
          <p>
            {user_id} holds no {provider_id} token{scopeText} yet. Once {user_id} allows access, the call runs again by itself.
          </p>
          {url && (
            <p>
              <a href={url} target="_blank" rel="noopener noreferrer">
                Open the authorization page
              </a>{' '}
              <CopyButton text={url} label="Copy the authorization URL" />
            </p>
          )}
        </>
      )}
      {status === 'completed' && (
        <p>
          {user_id} allowed {provider_id} access{scopeText}: the call was sent again.
        </p>
      )}
      {status === 'failed' && <p>The authorization with {provider_id} failed: run the call again to start a new one.</p>}
    </div>
  );
}

export function ResultView({ result }: { result: ExecuteResponse }) {
  const { error } = result.output;
  return (
    <Section title="Result">
      <p role="status" class={result.success ? 'ok' : 'bad'}>
        {result.success ? 'Succeeded' : 'Failed'} in {result.duration} ms <span class="muted">execution {result.execution_id}</span>
      </p>
      {error && <ErrorDetails error={error} />}
      <JsonView value={result.output} label="Result JSON" />
    </Section>
  );
}
