/** Scheduled executions: schedule one, list them, and one with its input and every attempt. */
import { useEffect, useState } from 'preact/hooks';
import { api, query, type Page } from '../api.js';
import { ErrorNote, ListTable, JsonView, Loading, Section, useLoad, UserField, useUserId, when } from '../ui.js';

interface Execution {
  id: string;
  tool_name: string;
  user_id: string | null;
  execution_status: string;
  run_at: string;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
}

interface Attempt {
  id: string;
  started_at: string;
  finished_at: string | null;
  success: boolean | null;
  system_error_message: string | null;
  output: unknown;
}

const finished = (status: string) => status === 'success' || status === 'failed';

/** datetime-local wants local time without a zone. */
function localInput(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

export function ScheduledPage() {
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => api<Page<Execution>>('GET', `/scheduled_tools${query({ limit: 25, offset })}`), [offset]);

  // While an execution waits or runs, look again every two seconds.
  const pending = list.data?.items.some((execution) => !finished(execution.execution_status));
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(list.reload, 2000);
    return () => clearTimeout(timer);
  }, [list.data]);

  return (
    <div>
      <h1>Scheduled executions</h1>
      <Schedule onScheduled={list.reload} />
      <Section title="Executions">
        <ErrorNote error={list.error} />
        {list.loading && !list.data && <Loading what="executions" />}
        {list.data && (
          <>
            <ListTable
              columns={['Tool', 'User', 'Runs at', 'Status', 'Finished']}
              items={list.data.items}
              row={(execution) => (
                <tr key={execution.id}>
                  <td>
                    <a href={`#/scheduled/${execution.id}`}>{execution.tool_name}</a>
                  </td>
                  <td>{execution.user_id ?? '—'}</td>
                  <td>{when(execution.run_at)}</td>
                  <td>
                    <span class={`status status-${execution.execution_status}`}>{execution.execution_status}</span>
                  </td>
                  <td>{when(execution.finished_at)}</td>
                </tr>
              )}
              empty="Nothing scheduled yet."
            />
            <Pager page={list.data} onOffset={setOffset} />
          </>
        )}
      </Section>
    </div>
  );
}

export function Pager({ page, onOffset }: { page: Page<unknown>; onOffset: (offset: number) => void }) {
  if (page.total_count <= page.limit) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="small" disabled={page.offset === 0} onClick={() => onOffset(Math.max(0, page.offset - page.limit))}>
        Newer
      </button>
      <span>
        {page.offset + 1}–{page.offset + page.page_count} of {page.total_count}
      </span>
      <button type="button" class="small" disabled={page.offset + page.limit >= page.total_count} onClick={() => onOffset(page.offset + page.limit)}>
        Older
      </button>
    </nav>
  );
}

function Schedule({ onScheduled }: { onScheduled: () => void }) {
  const [userId] = useUserId();
  const [tool, setTool] = useState('');
  const [input, setInput] = useState('{}');
  const [runAt, setRunAt] = useState(() => localInput(new Date(Date.now() + 60_000)));
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState('');

  async function schedule(event: Event) {
    event.preventDefault();
    setError(undefined);
    // A new attempt: what the last one said no longer stands beside what this one says.
    setDone('');
    let parsed: unknown;
    try {
      parsed = JSON.parse(input || '{}');
    } catch (caught) {
      return setError(new Error(`input is not valid JSON: ${(caught as Error).message}`));
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return setError(new Error('input must be a JSON object'));
    try {
      const answer = await api<{ execution_id: string; run_at: string }>('POST', '/tools/execute', {
        tool_name: tool,
        input: parsed,
        run_at: new Date(runAt).toISOString(),
        ...(userId && { user_id: userId }),
      });
      setDone(`Scheduled for ${when(answer.run_at)}.`);
      onScheduled();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <Section title="Schedule an execution">
      <form class="stack-form" onSubmit={schedule} aria-label="Schedule an execution">
        <div class="row-form">
          <label class="field grow" for="schedule-tool">
            <span>Tool</span>
            <input
              id="schedule-tool"
              required
              value={tool}
              placeholder="RepoHostApi.GetRepohostRepositoryDetails"
              onInput={(event) => setTool(event.currentTarget.value)}
            />
          </label>
          <UserField id="schedule-user" />
          <label class="field" for="schedule-at">
            <span>Run at (your time)</span>
            <input id="schedule-at" type="datetime-local" required value={runAt} onInput={(event) => setRunAt(event.currentTarget.value)} />
          </label>
        </div>
        <label class="field" for="schedule-input">
          <span>Input (JSON object)</span>
          <textarea id="schedule-input" class="mono" rows={4} value={input} onInput={(event) => setInput(event.currentTarget.value)} />
        </label>
        <div>
          <button type="submit">Schedule</button>{' '}
          <button type="button" class="secondary" onClick={() => setRunAt(localInput(new Date()))}>
            Now
          </button>
        </div>
      </form>
      <p role="status">{done}</p>
      <ErrorNote error={error} />
    </Section>
  );
}

export function ScheduledDetailPage({ id }: { id: string }) {
  const execution = useLoad(() => api<Execution & { input: unknown; attempts: Attempt[] }>('GET', `/scheduled_tools/${encodeURIComponent(id)}`), [id]);
  const status = execution.data?.execution_status;
  useEffect(() => {
    if (!status || finished(status)) return;
    const timer = setTimeout(execution.reload, 1000);
    return () => clearTimeout(timer);
  }, [execution.data]);

  return (
    <div>
      <p>
        <a href="#/scheduled">← All scheduled executions</a>
      </p>
      <h1>Scheduled execution</h1>
      <ErrorNote error={execution.error} />
      {!execution.data && execution.loading && <Loading what="the execution" />}
      {execution.data && (
        <>
          <dl class="pairs card">
            <div>
              <dt>Tool</dt>
              <dd>{execution.data.tool_name}</dd>
            </div>
            <div>
              <dt>User</dt>
              <dd>{execution.data.user_id ?? '—'}</dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>
                <span class={`status status-${execution.data.execution_status}`}>{execution.data.execution_status}</span>
              </dd>
            </div>
            <div>
              <dt>Runs at</dt>
              <dd>{when(execution.data.run_at)}</dd>
            </div>
            <div>
              <dt>Finished</dt>
              <dd>{when(execution.data.finished_at)}</dd>
            </div>
          </dl>
          <Section title="Input">
            <JsonView value={execution.data.input} label="Input JSON" />
          </Section>
          <Section title={`Attempts (${execution.data.attempts.length})`}>
            {!execution.data.attempts.length && <p class="muted">Not run yet.</p>}
            {execution.data.attempts.map((attempt, index) => (
              <div key={attempt.id} class="attempt">
                <h3>
                  Attempt {index + 1}: {attempt.success === null ? 'running' : attempt.success ? 'succeeded' : 'failed'}
                </h3>
                <p class="muted">
                  {when(attempt.started_at)} → {when(attempt.finished_at)}
                </p>
                {attempt.system_error_message && <p class="bad">{attempt.system_error_message}</p>}
                {attempt.output !== null && <JsonView value={attempt.output} label={`Attempt ${index + 1} output`} />}
              </div>
            ))}
          </Section>
        </>
      )}
    </div>
  );
}
