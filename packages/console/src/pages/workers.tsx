/**
 * Workers: register, enable or disable, check health, test an address, choose the secrets each may
 * receive, see the tools each serves and where they go.
 */
import { useState } from 'preact/hooks';
import { api, type Page } from '../api.js';
import { forgetToolIndex, toolIndex } from '../tool-index.js';
import { ErrorNote, ListTable, Loading, Section, useLoad } from '../ui.js';

interface Worker {
  id: string;
  type: 'http' | 'mcp';
  enabled: boolean;
  /** The engine's secrets the worker may receive with a call; a tool of it that declares another is refused. */
  allowed_secrets: string[];
  http?: { uri: string; timeout: number; retry: number; secret?: { exists: boolean } };
  mcp?: { uri: string; timeout: number; retry: number };
}

interface Health {
  healthy: boolean;
  message?: string;
}

/** Secret keys typed as a list: separated by commas or spaces. */
const secretKeys = (text: string) => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

export function WorkersPage() {
  const workers = useLoad(() => api<Page<Worker>>('GET', '/workers?limit=100'), []);
  const [selected, setSelected] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const selectedWorker = workers.data?.items.find((worker) => worker.id === selected);

  async function setEnabled(worker: Worker, enabled: boolean) {
    try {
      await api('PATCH', `/workers/${encodeURIComponent(worker.id)}`, { enabled });
      forgetToolIndex();
      workers.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  async function remove(worker: Worker) {
    if (!confirm(`Remove the worker ${worker.id}? Its tools go back to where they were served before.`)) return;
    try {
      await api('DELETE', `/workers/${encodeURIComponent(worker.id)}`);
      forgetToolIndex();
      if (selected === worker.id) setSelected(undefined);
      workers.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <div>
      <h1>Workers</h1>
      <Register
        onRegistered={(id) => {
          forgetToolIndex();
          workers.reload();
          setSelected(id);
        }}
      />
      <Section title="Registered workers">
        <ErrorNote error={workers.error ?? error} />
        {workers.loading && !workers.data && <Loading what="workers" />}
        {workers.data && !workers.data.items.length && <p class="muted">No workers: every tool runs in the engine.</p>}
        {workers.data && workers.data.items.length > 0 && (
          <ListTable
            columns={['Id', 'Type', 'Address', 'Allowed secrets', 'Enabled', 'Health']}
            actions
            items={workers.data.items}
            row={(worker) => (
              <tr key={worker.id} class={selected === worker.id ? 'selected' : undefined}>
                <td>{worker.id}</td>
                <td>{worker.type}</td>
                <td>
                  <code>{(worker.http ?? worker.mcp)?.uri}</code>
                </td>
                <td>{worker.allowed_secrets.length ? worker.allowed_secrets.join(', ') : <span class="muted">none</span>}</td>
                <td>
                  {worker.enabled ? 'enabled' : 'disabled'}{' '}
                  <button
                    type="button"
                    class="small secondary"
                    aria-label={`${worker.enabled ? 'Disable' : 'Enable'} ${worker.id}`}
                    onClick={() => void setEnabled(worker, !worker.enabled)}
                  >
                    {worker.enabled ? 'Disable' : 'Enable'}
                  </button>
                </td>
                <td>
                  <HealthCell id={worker.id} />
                </td>
                <td>
                  <button type="button" class="small" aria-pressed={selected === worker.id} onClick={() => setSelected(worker.id)}>
                    Tools
                  </button>{' '}
                  <button type="button" class="small danger" onClick={() => void remove(worker)}>
                    Remove
                  </button>
                </td>
              </tr>
            )}
          />
        )}
      </Section>
      {selectedWorker && <AllowedSecrets key={`secrets-${selectedWorker.id}`} worker={selectedWorker} onSaved={workers.reload} />}
      {selected && <WorkerTools key={selected} id={selected} allowed={selectedWorker?.allowed_secrets ?? []} enabled={selectedWorker?.enabled !== false} />}
    </div>
  );
}

function HealthCell({ id }: { id: string }) {
  const health = useLoad(() => api<Health>('GET', `/workers/${encodeURIComponent(id)}/health`), [id]);
  if (health.error) return <span class="bad">{health.error.message}</span>;
  if (!health.data) return <span class="muted">checking…</span>;
  return (
    <span class={health.data.healthy ? 'ok' : 'bad'}>
      {health.data.healthy ? 'healthy' : 'unhealthy'}
      {health.data.message ? `: ${health.data.message}` : ''}{' '}
      <button type="button" class="small link" onClick={health.reload} aria-label={`Check ${id} again`}>
        ↻
      </button>
    </span>
  );
}

function Register({ onRegistered }: { onRegistered: (id: string) => void }) {
  const [id, setId] = useState('');
  const [type, setType] = useState<'http' | 'mcp'>('http');
  const [uri, setUri] = useState('');
  const [secret, setSecret] = useState('');
  const [allowed, setAllowed] = useState('');
  const [test, setTest] = useState<Health | undefined>();
  const [error, setError] = useState<unknown>();

  const connection = () => ({ [type]: { uri, ...(type === 'http' && secret && { secret }) } });

  async function register(event: Event) {
    event.preventDefault();
    setError(undefined);
    try {
      await api('POST', '/workers', { id, type, enabled: true, allowed_secrets: secretKeys(allowed), ...connection() });
      setSecret('');
      setAllowed('');
      onRegistered(id);
    } catch (caught) {
      setError(caught);
    }
  }

  async function tryIt() {
    setError(undefined);
    try {
      setTest(await api<Health>('POST', '/workers/test', { type, ...connection() }));
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <Section title="Register a worker">
      <form class="row-form" onSubmit={register} aria-label="Register a worker">
        <label class="field" for="worker-id">
          <span>Id</span>
          <input id="worker-id" required pattern="[A-Za-z0-9][A-Za-z0-9_\-]{0,63}" value={id} onInput={(event) => setId(event.currentTarget.value)} />
        </label>
        <label class="field" for="worker-type">
          <span>Type</span>
          <select id="worker-type" value={type} onChange={(event) => setType(event.currentTarget.value as 'http' | 'mcp')}>
            <option value="http">worker protocol (http)</option>
            <option value="mcp">MCP server</option>
          </select>
        </label>
        <label class="field grow" for="worker-uri">
          <span>Address</span>
          <input id="worker-uri" type="url" required value={uri} placeholder="http://127.0.0.1:8002" onInput={(event) => setUri(event.currentTarget.value)} />
        </label>
        {type === 'http' && (
          <label class="field" for="worker-secret">
            <span>Secret</span>
            <input id="worker-secret" type="password" autocomplete="off" value={secret} onInput={(event) => setSecret(event.currentTarget.value)} />
          </label>
        )}
        <label class="field" for="worker-allowed-secrets">
          <span>Allowed secrets</span>
          <input
            id="worker-allowed-secrets"
            value={allowed}
            placeholder="none"
            title="Keys of the engine's secrets this worker may receive, separated by commas"
            onInput={(event) => setAllowed(event.currentTarget.value)}
          />
        </label>
        <button type="button" onClick={() => void tryIt()} disabled={!uri}>
          Test
        </button>
        <button type="submit">Register</button>
      </form>
      {test && (
        <p role="status" class={test.healthy ? 'ok' : 'bad'}>
          Test: {test.healthy ? 'the worker answers' : 'the worker does not answer'}
          {test.message ? ` (${test.message})` : ''}
        </p>
      )}
      <ErrorNote error={error} />
    </Section>
  );
}

/** Changes which of the engine's secrets a worker may receive. */
function AllowedSecrets({ worker, onSaved }: { worker: Worker; onSaved: () => void }) {
  const [text, setText] = useState(worker.allowed_secrets.join(', '));
  const [saved, setSaved] = useState('');
  const [error, setError] = useState<unknown>();

  async function save(event: Event) {
    event.preventDefault();
    setError(undefined);
    try {
      const updated = await api<Worker>('PATCH', `/workers/${encodeURIComponent(worker.id)}`, { allowed_secrets: secretKeys(text) });
      setSaved(`${worker.id} may receive ${updated.allowed_secrets.length ? updated.allowed_secrets.join(', ') : 'no secrets'}.`);
      onSaved();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <Section title={`Secrets ${worker.id} may receive`}>
      <p class="muted">A call of one of its tools that needs any other secret is refused, and nothing is sent to the worker.</p>
      <form class="row-form" onSubmit={save} aria-label={`Secrets ${worker.id} may receive`}>
        <label class="field grow" for="worker-secrets-edit">
          <span>Secret keys, separated by commas</span>
          <input id="worker-secrets-edit" value={text} placeholder="none" onInput={(event) => setText(event.currentTarget.value)} />
        </label>
        <button type="submit">Save secrets</button>
      </form>
      <p role="status">{saved}</p>
      <ErrorNote error={error} />
    </Section>
  );
}

interface WorkerTool {
  qualified_name: string;
  description: string;
  requirements: { secrets?: Array<{ key: string }> };
}

function WorkerTools({ id, allowed, enabled }: { id: string; allowed: string[]; enabled: boolean }) {
  const tools = useLoad(async () => {
    const [served, index] = await Promise.all([api<Page<WorkerTool>>('GET', `/workers/${encodeURIComponent(id)}/tools?limit=100`), toolIndex()]);
    const routes = new Map(index.map((tool) => [tool.name, tool.routed_to]));
    return { ...served, items: served.items.map((tool) => ({ ...tool, routed_to: routes.get(tool.qualified_name) })) };
  }, [id, enabled]);
  return (
    <Section title={`Tools served by ${id}`}>
      <ErrorNote error={tools.error} />
      {tools.loading && !tools.data && <Loading what="the worker's tools" />}
      {tools.data && (
        <>
          <p class="muted">
            {tools.data.total_count} tools
            {tools.data.total_count > tools.data.items.length ? `, the first ${tools.data.items.length} shown` : ''}.
          </p>
          <ListTable
            columns={['Tool', 'Calls go to', 'Secrets', 'Description']}
            items={tools.data.items}
            row={(tool) => (
              <tr key={tool.qualified_name}>
                <td>
                  {/* A tool no source offers (its worker disabled) has no page to open. */}
                  {tool.routed_to ? <a href={`#/tools/${encodeURIComponent(tool.qualified_name)}`}>{tool.qualified_name}</a> : tool.qualified_name}
                </td>
                <td>
                  {tool.routed_to === id ? 'this worker' : tool.routed_to ? tool.routed_to : enabled ? 'not offered' : 'not served: the worker is disabled'}
                </td>
                <td>
                  {(tool.requirements.secrets ?? []).map(({ key }, index) => (
                    <span key={key}>
                      {index > 0 && ', '}
                      <code>{key}</code>
                      {!allowed.includes(key) && <span class="bad"> (not allowed)</span>}
                    </span>
                  ))}
                </td>
                <td>{tool.description.split('. ')[0]}</td>
              </tr>
            )}
          />
        </>
      )}
    </Section>
  );
}
