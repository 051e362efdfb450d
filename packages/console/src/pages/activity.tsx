/**
 * Activity: recent executions with filters, and per-toolkit charts of the last hour from the engine's records.
 * A user key sees its own user's executions, and no charts: they count every user's calls.
 */
import type { ActivityItem, ToolkitSeries } from '@quiver/engine';
import { useEffect, useState } from 'preact/hooks';
import { api, query, type Page } from '../api.js';
import { ErrorNote, ListTable, Loading, Section, useLoad, when } from '../ui.js';
import { Pager } from './scheduled.js';

export function ActivityPage({ ownUser }: { ownUser?: string }) {
  const [filter, setFilter] = useState({ tool: '', toolkit: '', user_id: '', outcome: '' });
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => api<Page<ActivityItem>>('GET', `/activity/executions${query({ ...filter, limit: 25, offset })}`), [filter, offset]);
  const stats = useLoad(
    () => (ownUser ? Promise.resolve(undefined) : api<{ minutes: string[]; toolkits: ToolkitSeries[] }>('GET', '/activity/stats?minutes=60')),
    [],
  );

  useEffect(() => {
    const timer = setInterval(() => {
      stats.reload();
      list.reload();
    }, 15_000);
    return () => clearInterval(timer);
  }, []);

  const set = (name: keyof typeof filter) => (event: Event) => {
    setOffset(0);
    setFilter({ ...filter, [name]: (event.currentTarget as HTMLInputElement).value.trim() });
  };

  return (
    <div>
      <h1>Activity</h1>
      {ownUser ? (
        <p class="muted">
          The executions of {ownUser}, this key's user. The charts of the last hour count every user's calls: admin and service keys see them.
        </p>
      ) : (
        <Section title="The last hour, per toolkit">
          <ErrorNote error={stats.error} />
          {stats.loading && !stats.data && <Loading what="statistics" />}
          {stats.data && !stats.data.toolkits.length && <p class="muted">No calls in the last hour.</p>}
          <div class="charts">
            {stats.data?.toolkits.map((series) => (
              <ToolkitCharts key={series.toolkit} series={series} />
            ))}
          </div>
        </Section>
      )}
      <Section title="Recent executions">
        <form class="row-form" aria-label="Filter executions" onSubmit={(event) => event.preventDefault()}>
          <label class="field" for="activity-tool">
            <span>Tool</span>
            <input id="activity-tool" type="search" placeholder="Toolkit.Tool" onChange={set('tool')} />
          </label>
          <label class="field" for="activity-toolkit">
            <span>Toolkit</span>
            <input id="activity-toolkit" type="search" onChange={set('toolkit')} />
          </label>
          <label class="field" for="activity-user">
            <span>User</span>
            <input id="activity-user" type="search" onChange={set('user_id')} value={ownUser} readOnly={ownUser !== undefined} />
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
                  <td>{when(item.started_at)}</td>
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
            <Pager page={list.data} onOffset={setOffset} />
          </>
        )}
      </Section>
    </div>
  );
}

const width = 300;
const height = 80;

function ToolkitCharts({ series }: { series: ToolkitSeries }) {
  const calls = series.points.map((point) => point.calls);
  const errorRates = series.points.map((point) => (point.calls ? point.errors / point.calls : null));
  const p50 = series.points.map((point) => point.p50_ms);
  const p99 = series.points.map((point) => point.p99_ms);
  const ms = (value: number | null) => (value === null ? '—' : `${value} ms`);
  return (
    <figure class="toolkit-chart">
      <figcaption>
        <strong>{series.toolkit}</strong>: {series.calls} calls, {(series.error_rate * 100).toFixed(1)}% errors, p50 {ms(series.p50_ms)}, p99{' '}
        {ms(series.p99_ms)}
      </figcaption>
      <Chart title={`${series.toolkit}: calls per minute`} lines={[{ values: calls, className: 'line-calls' }]} max={Math.max(1, ...calls)} unit="calls" bars />
      <Chart title={`${series.toolkit}: error rate`} lines={[{ values: errorRates, className: 'line-errors' }]} max={1} unit="%" percent />
      <Chart
        title={`${series.toolkit}: latency p50 and p99`}
        lines={[
          { values: p50, className: 'line-p50' },
          { values: p99, className: 'line-p99' },
        ]}
        max={Math.max(1, ...p99.map((value) => value ?? 0))}
        unit="ms"
      />
    </figure>
  );
}

/** One small SVG chart over the minutes: bars, or lines with gaps where a minute had no calls. */
function Chart({
  title,
  lines,
  max,
  unit,
  bars,
  percent,
}: {
  title: string;
  lines: { values: (number | null)[]; className: string }[];
  max: number;
  unit: string;
  bars?: boolean;
  percent?: boolean;
}) {
  const count = lines[0]?.values.length ?? 0;
  const step = width / Math.max(1, count);
  const y = (value: number) => height - (value / max) * (height - 4);
  const label = percent ? `${Math.round(max * 100)}%` : `${Math.round(max)} ${unit}`;
  return (
    <svg class="chart" viewBox={`0 0 ${width} ${height + 14}`} role="img" aria-label={`${title}, last ${count} minutes, scale up to ${label}`}>
      <title>{title}</title>
      <line x1="0" y1={height} x2={width} y2={height} class="axis" />
      <text x="2" y="10" class="chart-label">
        {label}
      </text>
      <text x="2" y={height + 12} class="chart-label">
        −{count} min
      </text>
      <text x={width - 2} y={height + 12} class="chart-label end">
        now
      </text>
      {bars
        ? lines[0]!.values.map((value, index) =>
            value ? (
              <rect key={index} x={index * step + 0.5} y={y(value)} width={Math.max(1, step - 1)} height={height - y(value)} class={lines[0]!.className} />
            ) : null,
          )
        : lines.map((line) => (
            <g key={line.className} class={line.className}>
              <path d={pathOf(line.values, step, y)} fill="none" />
              {line.values.map((value, index) => (value === null ? null : <circle key={index} cx={index * step + step / 2} cy={y(value)} r="1.6" />))}
            </g>
          ))}
    </svg>
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
