/**
 * The audit trail (admins): every administrative change, newest first: when, what, to which thing, made
 * with which key (or from the command line), from where, and what changed, with filters. Secrets appear
 * only as set or removed: the engine never records their values.
 */
import type { AuditAction, AuditEvent } from '@quiver/engine';
import { useState } from 'preact/hooks';
import { api, query, type Page } from '../api.js';
import { ErrorNote, ListTable, Loading, Section, useLoad, when } from '../ui.js';
import { Pager } from './scheduled.js';

/** Every action the engine records, in words; the engine's list of actions is the key set, so none is missed. */
const actionLabels: Record<AuditAction, string> = {
  'api_key.created': 'API key created',
  'api_key.updated': 'API key limits changed',
  'api_key.revoked': 'API key revoked',
  'secret.set': 'secret set',
  'secret.deleted': 'secret deleted',
  'auth_provider.created': 'auth provider created',
  'auth_provider.updated': 'auth provider changed',
  'auth_provider.deleted': 'auth provider deleted',
  'worker.registered': 'worker registered',
  'worker.updated': 'worker changed',
  'worker.deleted': 'worker deleted',
  'session_verification.updated': 'session verification changed',
  'oauth_grant.ended': 'MCP sign-in ended',
  'user_connection.deleted': "user's connection deleted",
};

/** How far back to look. */
const periods: { label: string; hours?: number }[] = [
  { label: 'any time' },
  { label: 'the last hour', hours: 1 },
  { label: 'the last day', hours: 24 },
  { label: 'the last 7 days', hours: 24 * 7 },
  { label: 'the last 30 days', hours: 24 * 30 },
];

interface KeyInfo {
  id: string;
  name: string;
  prefix: string;
}

export function AuditPage() {
  const [filter, setFilter] = useState({ action: '', actor_key_id: '', target_id: '', period: '0' });
  const [offset, setOffset] = useState(0);
  const keys = useLoad(() => api<Page<KeyInfo>>('GET', '/admin/api_keys?limit=100'), []);
  const events = useLoad(() => {
    const hours = periods[Number(filter.period)]?.hours;
    const since = hours ? new Date(Date.now() - hours * 3_600_000).toISOString() : undefined;
    const { action, actor_key_id, target_id } = filter;
    return api<Page<AuditEvent>>('GET', `/admin/audit${query({ action, actor_key_id, target_id: target_id.trim(), since, limit: 25, offset })}`);
  }, [filter, offset]);

  const set = (name: keyof typeof filter) => (event: Event) => {
    setOffset(0);
    setFilter({ ...filter, [name]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value });
  };

  return (
    <div>
      <h1>Audit trail</h1>
      <p class="muted">
        Every change to keys, secrets, auth providers, workers, session verification, MCP sign-ins and users' connections, with the key that made it and where
        from. Secrets show only as set or removed: their values are never recorded.
      </p>
      <Section title="Changes">
        <form class="row-form" aria-label="Filter changes" onSubmit={(event) => event.preventDefault()}>
          <label class="field" for="audit-action">
            <span>Action</span>
            <select id="audit-action" value={filter.action} onChange={set('action')}>
              <option value="">any</option>
              {Object.entries(actionLabels).map(([action, label]) => (
                <option key={action} value={action}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label class="field" for="audit-key">
            <span>Made with key</span>
            <select id="audit-key" value={filter.actor_key_id} onChange={set('actor_key_id')}>
              <option value="">any</option>
              {keys.data?.items.map((key) => (
                <option key={key.id} value={key.id}>
                  {key.name} ({key.prefix}…)
                </option>
              ))}
            </select>
          </label>
          <label class="field" for="audit-target">
            <span>Target</span>
            <input id="audit-target" type="search" placeholder="id or name, e.g. GIT_SERVER_URL" onChange={set('target_id')} />
          </label>
          <label class="field" for="audit-period">
            <span>When</span>
            <select id="audit-period" value={filter.period} onChange={set('period')}>
              {periods.map((period, index) => (
                <option key={period.label} value={String(index)}>
                  {period.label}
                </option>
              ))}
            </select>
          </label>
        </form>
        <ErrorNote error={events.error ?? keys.error} />
        {events.loading && !events.data && <Loading what="changes" />}
        {events.data && (
          <>
            <ListTable
              columns={['When', 'Action', 'Target', 'By', 'From', 'Change']}
              items={events.data.items}
              row={(event) => (
                <tr key={event.id}>
                  <td>{when(event.occurred_at)}</td>
                  <td>{actionLabels[event.action] ?? event.action}</td>
                  <td>
                    <span class="muted">{event.target.type.replaceAll('_', ' ')}</span> {event.target.id && <code class="break">{event.target.id}</code>}
                  </td>
                  <td>
                    <Actor event={event} />
                  </td>
                  <td>{event.client_address ?? <span class="muted">—</span>}</td>
                  <td>
                    <Change change={event.change} />
                  </td>
                </tr>
              )}
              empty="No changes match."
            />
            <Pager page={events.data} onOffset={setOffset} />
          </>
        )}
      </Section>
    </div>
  );
}

function Actor({ event }: { event: AuditEvent }) {
  const { actor } = event;
  if (actor.type === 'cli') return <>command line{actor.name && <span class="muted"> ({actor.name})</span>}</>;
  return (
    <>
      {actor.name} <code>{actor.key_prefix}…</code> {actor.role && <span class="badge">{actor.role}</span>}
    </>
  );
}

/** What changed, one line a field (nested settings by their dotted path): `from → to` for an update, else the value. */
function Change({ change }: { change: Record<string, unknown> }) {
  const shown = lines(change);
  if (!shown.length) return <span class="muted">—</span>;
  return (
    <ul class="plain change">
      {shown.map(([path, value]) => (
        <li key={path}>
          <code>{path}</code>: {value}
        </li>
      ))}
    </ul>
  );
}

function lines(value: Record<string, unknown>, prefix = ''): [string, string][] {
  return Object.entries(value).flatMap(([name, item]): [string, string][] => {
    const path = prefix ? `${prefix}.${name}` : name;
    if (isUpdate(item)) return [[path, `${text(item.from)} → ${text(item.to)}`]];
    if (item && typeof item === 'object' && !Array.isArray(item)) return lines(item as Record<string, unknown>, path);
    return [[path, text(item)]];
  });
}

const isUpdate = (value: unknown): value is { from: unknown; to: unknown } =>
  Boolean(value) && typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).join() === 'from,to';

function text(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.length ? value.map(text).join(', ') : 'none';
  // An empty or blank text is shown quoted, so that it is seen.
  if (typeof value === 'object' || (typeof value === 'string' && !value.trim())) return JSON.stringify(value);
  return String(value);
}
