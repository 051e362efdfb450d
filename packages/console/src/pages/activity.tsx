/**
 * Activity: recent executions with filters, each opening at its own address with its input, output and
 * error; and per-toolkit charts over a chosen period from the engine's records, with legends and each
 * point's values on hover or from the keyboard. A user key sees its own user's executions, and no
 * charts: they count every user's calls.
 */
import type { ActivityDetail, ActivityItem, ToolkitSeries } from '@quiver/engine';
import { useEffect, useState } from 'preact/hooks';
import { api, query, type Page } from '../api.js';
import { ErrorDetails, ErrorNote, JsonView, ListTable, Loading, Section, useLoad, when } from '../ui.js';
import { Pager } from './scheduled.js';

interface Stats {
  step: number;
  minutes: string[];
  toolkits: ToolkitSeries[];
}

/** The periods the charts cover; over hours a point is several minutes, so that a chart keeps under a hundred. */
const periods = [
  { id: '15m', label: '15 minutes', minutes: 15, step: 1 },
  { id: '1h', label: 'hour', minutes: 60, step: 1 },
  { id: '6h', label: '6 hours', minutes: 360, step: 5 },
  { id: '24h', label: '24 hours', minutes: 1440, step: 20 },
] as const;
type Period = (typeof periods)[number];

const emptyFilter = { tool: '', toolkit: '', user_id: '', outcome: '' };
type Filter = typeof emptyFilter;

export function ActivityPage({ ownUser, detail }: { ownUser?: string; detail?: string }) {
  // Held here, above both views, so that coming back from an execution finds the list as it was left.
  const [filter, setFilter] = useState(emptyFilter);
  const [offset, setOffset] = useState(0);
  const [period, setPeriod] = useState<Period>(periods[1]);
  if (detail) return <ExecutionPage id={detail} ownUser={ownUser} />;
  return (
    <div>
      <h1>Activity</h1>
      {ownUser ? (
        <p class="muted">
          The executions of {ownUser}, this key's user. The charts of the last hour count every user's calls: admin and service keys see them.
        </p>
      ) : (
        <ChartsSection period={period} onPeriod={setPeriod} />
      )}
      <Executions ownUser={ownUser} filter={filter} onFilter={setFilter} offset={offset} onOffset={setOffset} />
    </div>
  );
}

function ChartsSection({ period, onPeriod }: { period: Period; onPeriod: (period: Period) => void }) {
  const stats = useLoad(() => api<Stats>('GET', `/activity/stats${query({ minutes: period.minutes, step: period.step })}`), [period]);
  useEffect(() => {
    const timer = setInterval(stats.reload, 15_000);
    return () => clearInterval(timer);
  }, []);

  const choice = (
    <label class="field inline" for="activity-period">
      <span>Period</span>
      <select
        id="activity-period"
        value={period.id}
        onChange={(event) => onPeriod(periods.find((option) => option.id === event.currentTarget.value) ?? periods[1])}
      >
        {periods.map((option) => (
          <option key={option.id} value={option.id}>
            last {option.label}
          </option>
        ))}
      </select>
    </label>
  );
  // While another period loads, the last one's answer stays on screen: its own step describes its points.
  const shown = stats.data;
  return (
    <Section title={`The last ${period.label}, per toolkit`} actions={choice}>
      <ErrorNote error={stats.error} />
      {stats.loading && !shown && <Loading what="statistics" />}
      {shown && !shown.toolkits.length && <p class="muted">No calls in the last {period.label}.</p>}
      {shown && shown.toolkits.length > 0 && <p class="muted">Point at a chart, or focus it and use the arrow keys, to read its values at each point.</p>}
      <div class="charts">
        {shown?.toolkits.map((series) => (
          <ToolkitCharts key={series.toolkit} series={series} step={shown.step} />
        ))}
      </div>
    </Section>
  );
}

function Executions({
  ownUser,
  filter,
  onFilter,
  offset,
  onOffset,
}: {
  ownUser?: string;
  filter: Filter;
  onFilter: (filter: Filter) => void;
  offset: number;
  onOffset: (offset: number) => void;
}) {
  const list = useLoad(() => api<Page<ActivityItem>>('GET', `/activity/executions${query({ ...filter, limit: 25, offset })}`), [filter, offset]);
  useEffect(() => {
    const timer = setInterval(list.reload, 15_000);
    return () => clearInterval(timer);
  }, []);

  // The text fields are left to the browser (a reload every 15 s must not undo what is being typed), starting from the filter.
  const set = (name: keyof Filter) => (event: Event) => {
    onOffset(0);
    onFilter({ ...filter, [name]: (event.currentTarget as HTMLInputElement).value.trim() });
  };

  return (
    <Section title="Recent executions">
      <form class="row-form" aria-label="Filter executions" onSubmit={(event) => event.preventDefault()}>
        <label class="field" for="activity-tool">
          <span>Tool</span>
          <input id="activity-tool" type="search" placeholder="Toolkit.Tool" defaultValue={filter.tool} onChange={set('tool')} />
        </label>
        <label class="field" for="activity-toolkit">
          <span>Toolkit</span>
          <input id="activity-toolkit" type="search" defaultValue={filter.toolkit} onChange={set('toolkit')} />
        </label>
        <label class="field" for="activity-user">
          <span>User</span>
          <input id="activity-user" type="search" onChange={set('user_id')} value={ownUser} defaultValue={filter.user_id} readOnly={ownUser !== undefined} />
        </label>
        <label class="field" for="activity-outcome">
          <span>Outcome</span>
          <select id="activity-outcome" value={filter.outcome} onChange={set('outcome')}>
            <option value="">any</option>
            <option value="success">succeeded</option>
            <option value="failed">failed</option>
          </select>
        </label>
      </form>
      <ErrorNote error={list.error} />
      {list.loading && !list.data && <Loading what="executions" />}
      {list.data && (
        <>
          <ListTable
            columns={['Started', 'Tool', 'User', 'Kind', 'Outcome', { title: 'Duration', class: 'num' }]}
            items={list.data.items}
            row={(item) => (
              <tr key={item.id}>
                <td>
                  <a href={`#/activity/${encodeURIComponent(item.id)}`}>
                    {when(item.started_at)}
                    <span class="visually-hidden"> (the execution of {item.tool_name})</span>
                  </a>
                </td>
                <td>
                  <a href={`#/tools/${encodeURIComponent(item.tool_name)}`}>{item.tool_name}</a>
                </td>
                <td>{item.user_id ?? '—'}</td>
                <td>{item.execution_type}</td>
                <td class={item.success ? 'ok' : 'bad'}>{item.success ? 'success' : (item.error_kind ?? 'failed')}</td>
                <td class="num">{item.duration_ms.toFixed(1)} ms</td>
              </tr>
            )}
            empty="No executions match."
          />
          <Pager page={list.data} onOffset={onOffset} />
        </>
      )}
    </Section>
  );
}

/** One execution: what ran, for whom and how it ended, its input, its output and its error, as far as the engine keeps them. */
function ExecutionPage({ id, ownUser }: { id: string; ownUser?: string }) {
  const execution = useLoad(() => api<ActivityDetail>('GET', `/activity/executions/${encodeURIComponent(id)}`), [id]);
  const data = execution.data;
  const notKept = (
    <p class="muted">
      Not kept: this call was recorded before the engine kept immediate calls' input and output, or with <code>QUIVER_RECORD_CALL_DATA</code> off, so its record
      holds only its outcome, error kind and duration.
    </p>
  );
  return (
    <div>
      <p>
        <a href="#/activity">← Recent executions</a>
      </p>
      <h1>Execution{data && ` of ${data.tool_name}`}</h1>
      <ErrorNote error={execution.error} />
      {!data && execution.loading && <Loading what="the execution" />}
      {data && (
        <>
          <dl class="pairs card" aria-label="Execution">
            <div>
              <dt>Tool</dt>
              <dd>
                <a href={`#/tools/${encodeURIComponent(data.tool_name)}`}>{data.tool_name}</a> <span class="muted">version {data.toolkit_version}</span>
              </dd>
            </div>
            <div>
              <dt>User</dt>
              <dd>{data.user_id ?? '—'}</dd>
            </div>
            <div>
              <dt>Kind</dt>
              <dd>
                {data.execution_type}
                {data.execution_type === 'scheduled' && !ownUser && (
                  <>
                    {' '}
                    <a href={`#/scheduled/${encodeURIComponent(data.id)}`}>(its schedule and attempts)</a>
                  </>
                )}
              </dd>
            </div>
            <div>
              <dt>Outcome</dt>
              <dd class={data.success ? 'ok' : 'bad'}>{data.success ? 'success' : 'failed'}</dd>
            </div>
            <div>
              <dt>Started</dt>
              <dd>{when(data.started_at)}</dd>
            </div>
            <div>
              <dt>Finished</dt>
              <dd>{when(data.finished_at)}</dd>
            </div>
            <div>
              <dt>Duration</dt>
              <dd>{data.duration_ms.toFixed(1)} ms</dd>
            </div>
            <div>
              <dt>Execution id</dt>
              <dd>
                <code>{data.id}</code>
              </dd>
            </div>
          </dl>
          {data.error && (
            <Section title="Error">
              <ErrorDetails error={data.error} />
              {!data.data_kept && <p class="muted">Only the error kind was kept: the message and retry hint went to the caller and were not recorded.</p>}
            </Section>
          )}
          <Section title="Input">{data.data_kept ? <JsonView value={data.input} label="Input JSON" /> : notKept}</Section>
          <Section title="Output">
            {!data.data_kept ? (
              notKept
            ) : data.output !== null ? (
              <JsonView value={data.output} label="Output JSON" />
            ) : (
              <p class="muted">{data.success ? 'The tool answered no value.' : 'None: the run failed (see the error above).'}</p>
            )}
          </Section>
        </>
      )}
    </div>
  );
}

const width = 300;
const height = 80;

/** A step's time as the reader's clock: `10:05`, or `10:05–10:10` when a point covers several minutes. */
function timeOf(minute: string, step: number): string {
  const start = new Date(`${minute}:00Z`);
  const clock = (date: Date) => date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return step === 1 ? clock(start) : `${clock(start)}–${clock(new Date(start.getTime() + step * 60_000))}`;
}

function ToolkitCharts({ series, step }: { series: ToolkitSeries; step: number }) {
  // The point read on every chart of the toolkit: hovered or chosen with the keys; the latest otherwise.
  const [at, setAt] = useState<number | undefined>();
  const points = series.points;
  const calls = points.map((point) => point.calls);
  const errorRates = points.map((point) => (point.calls ? point.errors / point.calls : null));
  const p50 = points.map((point) => point.p50_ms);
  const p99 = points.map((point) => point.p99_ms);
  const ms = (value: number | null) => (value === null ? '—' : `${value} ms`);
  const per = step === 1 ? 'per minute' : `per ${step} minutes`;
  const time = (index: number) => timeOf(points[index]!.minute, step);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const shared = { at, onAt: setAt, step };
  return (
    <figure class="toolkit-chart">
      <figcaption>
        <strong>{series.toolkit}</strong>: {series.calls} calls, {(series.error_rate * 100).toFixed(1)}% errors, p50 {ms(series.p50_ms)}, p99{' '}
        {ms(series.p99_ms)}
      </figcaption>
      <Chart
        {...shared}
        title={`${series.toolkit}: calls ${per}`}
        legend={[{ className: 'line-calls', label: `calls ${per}`, bar: true }]}
        lines={[{ values: calls, className: 'line-calls' }]}
        max={Math.max(1, ...calls)}
        unit="calls"
        bars
        valueAt={(index) => `${time(index)}: ${plural(calls[index]!, 'call')}`}
      />
      <Chart
        {...shared}
        title={`${series.toolkit}: error rate`}
        legend={[{ className: 'line-errors', label: 'error rate (failed calls of all calls)' }]}
        lines={[{ values: errorRates, className: 'line-errors' }]}
        max={1}
        unit="%"
        percent
        valueAt={(index) => {
          const { calls: n, errors } = points[index]!;
          return n ? `${time(index)}: ${errors} of ${plural(n, 'call')} failed, ${((errors / n) * 100).toFixed(1)}%` : `${time(index)}: no calls`;
        }}
      />
      <Chart
        {...shared}
        title={`${series.toolkit}: latency p50 and p99`}
        legend={[
          { className: 'line-p50', label: 'p50 latency (median)' },
          { className: 'line-p99', label: 'p99 latency' },
        ]}
        lines={[
          { values: p50, className: 'line-p50' },
          { values: p99, className: 'line-p99' },
        ]}
        max={Math.max(1, ...p99.map((value) => value ?? 0))}
        unit="ms"
        valueAt={(index) => (p50[index] === null ? `${time(index)}: no calls` : `${time(index)}: p50 ${ms(p50[index]!)}, p99 ${ms(p99[index]!)}`)}
      />
    </figure>
  );
}

/**
 * One small SVG chart over the period: bars, or lines with gaps where a point had no calls. It is a
 * slider over its points: pointing at one, or moving with the arrow keys once it has the focus, reads
 * that point's values below it (and to a screen reader, as the slider's value).
 */
function Chart({
  title,
  legend,
  lines,
  max,
  unit,
  bars,
  percent,
  step,
  at,
  onAt,
  valueAt,
}: {
  title: string;
  legend: { className: string; label: string; bar?: boolean }[];
  lines: { values: (number | null)[]; className: string }[];
  max: number;
  unit: string;
  bars?: boolean;
  percent?: boolean;
  step: number;
  at: number | undefined;
  onAt: (index: number | undefined) => void;
  valueAt: (index: number) => string;
}) {
  const count = lines[0]?.values.length ?? 0;
  const slot = width / Math.max(1, count);
  const y = (value: number) => height - (value / max) * (height - 4);
  const label = percent ? `${Math.round(max * 100)}%` : `${Math.round(max)} ${unit}`;
  const span = count * step;
  const spanLabel = span >= 120 ? `${span / 60} h` : `${span} min`;
  const shown = Math.min(at ?? count - 1, count - 1);

  const keys: Record<string, (index: number) => number> = {
    ArrowLeft: (index) => index - 1,
    ArrowDown: (index) => index - 1,
    ArrowRight: (index) => index + 1,
    ArrowUp: (index) => index + 1,
    PageDown: (index) => index - 10,
    PageUp: (index) => index + 10,
    Home: () => 0,
    End: () => count - 1,
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const move = keys[event.key];
    if (!move || !count) return;
    event.preventDefault();
    onAt(Math.max(0, Math.min(count - 1, move(shown))));
  };
  const onMouseMove = (event: MouseEvent) => {
    const box = (event.currentTarget as HTMLElement).getBoundingClientRect();
    onAt(Math.max(0, Math.min(count - 1, Math.floor(((event.clientX - box.left) / box.width) * count))));
  };
  // Leaving with the pointer gives the point back to the keys if the chart has the focus.
  const onMouseLeave = (event: MouseEvent) => {
    if (document.activeElement !== event.currentTarget) onAt(undefined);
  };

  return (
    <div class="chart-box">
      <ul class="chart-legend">
        {legend.map((item) => (
          <li key={item.className}>
            <svg class="swatch" viewBox="0 0 16 10" aria-hidden="true">
              {item.bar ? (
                <rect x="3" y="0" width="10" height="10" class={item.className} />
              ) : (
                <g class={item.className}>
                  <path d="M0,5H16" fill="none" />
                  <circle cx="8" cy="5" r="2" />
                </g>
              )}
            </svg>
            {item.label}
          </li>
        ))}
      </ul>
      <div
        class="chart-plot"
        role="slider"
        tabIndex={0}
        aria-label={`${title}, last ${spanLabel}, scale up to ${label}`}
        aria-valuemin={0}
        aria-valuemax={Math.max(0, count - 1)}
        aria-valuenow={shown}
        aria-valuetext={count ? valueAt(shown) : 'no points'}
        onKeyDown={onKeyDown}
        onMouseMove={onMouseMove}
        onMouseLeave={onMouseLeave}
        onBlur={() => onAt(undefined)}
      >
        <svg class="chart" viewBox={`0 0 ${width} ${height + 14}`} aria-hidden="true">
          <line x1="0" y1={height} x2={width} y2={height} class="axis" />
          <text x="2" y="10" class="chart-label">
            {label}
          </text>
          <text x="2" y={height + 12} class="chart-label">
            −{spanLabel}
          </text>
          <text x={width - 2} y={height + 12} class="chart-label end">
            now
          </text>
          {at !== undefined && <line x1={shown * slot + slot / 2} y1="0" x2={shown * slot + slot / 2} y2={height} class="chart-marker" />}
          {bars
            ? lines[0]!.values.map((value, index) =>
                value ? (
                  <rect key={index} x={index * slot + 0.5} y={y(value)} width={Math.max(1, slot - 1)} height={height - y(value)} class={lines[0]!.className} />
                ) : null,
              )
            : lines.map((line) => (
                <g key={line.className} class={line.className}>
                  <path d={pathOf(line.values, slot, y)} fill="none" />
                  {line.values.map((value, index) => (value === null ? null : <circle key={index} cx={index * slot + slot / 2} cy={y(value)} r="1.6" />))}
                </g>
              ))}
        </svg>
      </div>
      {/* What the slider's value says to a screen reader, shown: hidden from it, which has heard it. */}
      <p class="chart-value" aria-hidden="true">
        {count ? valueAt(shown) : ''}
      </p>
    </div>
  );
}

function pathOf(values: (number | null)[], step: number, y: (value: number) => number): string {
  let d = '';
  let drawing = false;
  values.forEach((value, index) => {
    if (value === null) {
      drawing = false;
      return;
    }
    const x = index * step + step / 2;
    d += `${drawing ? 'L' : 'M'}${x.toFixed(1)},${y(value).toFixed(1)}`;
    drawing = true;
  });
  return d;
}
