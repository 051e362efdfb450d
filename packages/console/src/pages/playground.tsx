/**
 * Run a tool by hand: a form from its input schema, a user, `fields`, and the result. Mode-driven
 * tools go in two steps: get the request-body schema, then write the body, checked before it is sent.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { SEARCH_PAUSE_MS, searchTools } from '../catalog.js';
import { collect, SchemaFields, type Values } from '../form.js';
import { isModeDriven, loadTool, type JsonSchema, type ToolDefinition } from '../tool.js';
import { ErrorNote, JsonView, Loading, Section, useLoad, UserField, useUserId } from '../ui.js';
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
    authorization?: { id: string; url?: string; status: string };
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
  const [names, setNames] = useState<string[]>([]);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (!text.trim()) return setNames([]);
    // Once typing pauses; a later keystroke cancels a search still on its way.
    const superseded = new AbortController();
    const timer = setTimeout(
      () =>
        searchTools(text.trim(), undefined, superseded.signal).then(
          (found) => {
            if (superseded.signal.aborted) return;
            setNames(found.names.slice(0, 8));
            setError(undefined);
          },
          (e: unknown) => superseded.signal.aborted || setError(e),
        ),
      SEARCH_PAUSE_MS,
    );
    return () => {
      superseded.abort();
      clearTimeout(timer);
    };
  }, [text]);
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
  const tool = useLoad(() => loadTool(name, userId), [name]);
  if (tool.error) return <ErrorNote error={tool.error} />;
  if (!tool.data) return <Loading what="the tool" />;
  return <Runner key={name} tool={tool.data} />;
}

function Runner({ tool }: { tool: ToolDefinition }) {
  const schema = tool.formatted_schema.mcp.inputSchema;
  const modeDriven = isModeDriven(schema);
  const [userId] = useUserId();
  const [values, setValues] = useState<Values>({});
  const [fields, setFields] = useState('');
  const [body, setBody] = useState('');
  const [bodySchema, setBodySchema] = useState<JsonSchema | undefined>();
  const [problems, setProblems] = useState<string[]>([]);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<ExecuteResponse | undefined>();
  const omit = modeDriven ? ['mode', 'request_body', 'fields'] : ['fields'];

  async function run(extra: Record<string, unknown>, checks: string[] = []) {
    const { input, problems: found } = collect(schema, values, omit);
    const fieldList = fields
      .split(',')
      .map((path) => path.trim())
      .filter(Boolean);
    const all = [...found, ...checks];
    setProblems(all);
    if (all.length) return;
    setRunning(true);
    setError(undefined);
    try {
      const answer = await api<ExecuteResponse>('POST', '/tools/execute', {
        tool_name: tool.qualified_name,
        input: { ...input, ...extra, ...(fieldList.length && { fields: fieldList }) },
        ...(userId && { user_id: userId }),
      });
      setResult(answer);
      return answer;
    } catch (caught) {
      setError(caught);
    } finally {
      setRunning(false);
    }
  }

  async function getSchema() {
    const answer = await run({ mode: 'get_request_schema' });
    const value = answer?.output.value as { request_body_schema?: JsonSchema } | undefined;
    if (value?.request_body_schema) setBodySchema(value.request_body_schema);
  }

  function executeBody() {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (caught) {
      return setProblems([`request_body is not valid JSON: ${(caught as Error).message}`]);
    }
    const bodyProblems = bodySchema ? validate(bodySchema, parsed).map((problem) => `request_body ${problem.pointer} ${problem.message}`) : [];
    void run({ mode: 'execute', request_body: body }, bodyProblems);
  }

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
          else void run({});
        }}
      >
        <UserField id="playground-user" required={tool.requirements.authorization !== undefined} />
        <SchemaFields schema={schema} values={values} omit={omit} onChange={(path, value) => setValues({ ...values, [path]: value })} />
        <div class="field">
          <label for="playground-fields">
            fields <span class="muted">optional: dotted paths, comma-separated, to project the result</span>
          </label>
          <input id="playground-fields" value={fields} placeholder="id, owner.login" onInput={(event) => setFields(event.currentTarget.value)} />
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
              <textarea id="playground-body" rows={8} class="mono" value={body} onInput={(event) => setBody(event.currentTarget.value)} />
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
      </form>
      <ErrorNote error={error} />
      {result && <ResultView result={result} />}
    </>
  );
}

export function ResultView({ result }: { result: ExecuteResponse }) {
  const { error, authorization } = result.output;
  return (
    <Section title="Result">
      <p role="status" class={result.success ? 'ok' : 'bad'}>
        {result.success ? 'Succeeded' : 'Failed'} in {result.duration} ms <span class="muted">execution {result.execution_id}</span>
      </p>
      {error && (
        <dl class="pairs error-detail">
          <div>
            <dt>kind</dt>
            <dd>
              <code>{error.kind}</code>
            </dd>
          </div>
          <div>
            <dt>message</dt>
            <dd>{error.message}</dd>
          </div>
          <div>
            <dt>retry</dt>
            <dd>
              {error.can_retry ? 'may be retried' : 'do not retry as is'}
              {error.retry_after_ms !== undefined && `, after ${error.retry_after_ms} ms`}
            </dd>
          </div>
          {error.additional_prompt_content && (
            <div>
              <dt>how to fix</dt>
              <dd class="pre">{error.additional_prompt_content}</dd>
            </div>
          )}
        </dl>
      )}
      {authorization?.url && (
        <p>
          The user must authorize first:{' '}
          <a href={authorization.url} target="_blank" rel="noopener noreferrer">
            open the authorization page
          </a>
        </p>
      )}
      <JsonView value={result.output} label="Result JSON" />
    </Section>
  );
}
