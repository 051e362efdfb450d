/** Users' connections by provider: revoke one, or start an authorization and follow it to its end. */
import { useState } from 'preact/hooks';
import { api, query, type Page } from '../api.js';
import { useFollowedAuthorization, type Authorization } from '../authorization.js';
import { CopyButton } from '../copy.js';
import { ErrorNote, ListTable, Loading, Section, useLoad, UserField, useUserId } from '../ui.js';

interface Connection {
  id: string;
  connection_status: string;
  provider_id: string;
  provider_description?: string;
  scopes: string[];
  user_id: string;
}

interface Provider {
  id: string;
  provider_id: string;
  description?: string;
}

export function ConnectionsPage() {
  const [userFilter, setUserFilter] = useState('');
  const connections = useLoad(
    () => api<Page<Connection>>('GET', `/admin/user_connections${query({ user_id: userFilter || undefined, limit: 100 })}`),
    [userFilter],
  );
  const providers = useLoad(() => api<Page<Provider>>('GET', '/admin/auth_providers?limit=100'), []);
  const [error, setError] = useState<unknown>();

  const byProvider = new Map<string, Connection[]>();
  for (const connection of connections.data?.items ?? []) {
    const list = byProvider.get(connection.provider_id);
    if (list) list.push(connection);
    else byProvider.set(connection.provider_id, [connection]);
  }

  async function revoke(connection: Connection) {
    if (!confirm(`Revoke ${connection.user_id}'s connection with ${connection.provider_id}? Their tools will need a new authorization.`)) return;
    try {
      await api('DELETE', `/admin/user_connections/${encodeURIComponent(connection.id)}`);
      connections.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <div>
      <h1>Users and connections</h1>
      <Authorize providers={providers.data?.items ?? []} onDone={connections.reload} />
      <Section
        title="Connections"
        actions={
          <label class="field inline" for="connections-user">
            <span>Only user</span>
            <input id="connections-user" type="search" value={userFilter} onInput={(event) => setUserFilter(event.currentTarget.value)} />
          </label>
        }
      >
        <ErrorNote error={connections.error ?? error} />
        {connections.loading && !connections.data && <Loading what="connections" />}
        {connections.data && !connections.data.items.length && <p class="muted">No connections{userFilter ? ` for ${userFilter}` : ''}.</p>}
        {[...byProvider].map(([provider, list]) => (
          <div key={provider}>
            <h3>{provider}</h3>
            <ListTable
              columns={['User', 'Scopes', 'Status']}
              actions
              items={list}
              row={(connection) => (
                <tr key={connection.id}>
                  <td>{connection.user_id}</td>
                  <td>{connection.scopes.join(', ') || '—'}</td>
                  <td>{connection.connection_status}</td>
                  <td>
                    <button type="button" class="small danger" onClick={() => void revoke(connection)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              )}
            />
          </div>
        ))}
      </Section>
    </div>
  );
}

function Authorize({ providers, onDone }: { providers: Provider[]; onDone: () => void }) {
  const [userId] = useUserId();
  const [provider, setProvider] = useState('');
  const [scopes, setScopes] = useState('');
  const [error, setError] = useState<unknown>();
  const followed = useFollowedAuthorization(onDone);
  const { authorization } = followed;

  async function start(event: Event) {
    event.preventDefault();
    setError(undefined);
    try {
      const scopeList = scopes.split(/[\s,]+/).filter(Boolean);
      const started = await api<Authorization>('POST', '/auth/authorize', {
        auth_requirement: { provider_id: provider, oauth2: { scopes: scopeList } },
        user_id: userId,
      });
      followed.follow(started);
      if (started.status === 'completed') onDone();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <Section title="Start an authorization">
      <form class="row-form" onSubmit={start} aria-label="Start an authorization">
        <UserField id="authorize-user" />
        <label class="field" for="authorize-provider">
          <span>Provider</span>
          <input
            id="authorize-provider"
            list="provider-list"
            required
            value={provider}
            placeholder="github"
            onInput={(event) => setProvider(event.currentTarget.value)}
          />
          <datalist id="provider-list">
            {providers.map((known) => (
              <option key={known.id} value={known.id}>
                {known.description ?? known.provider_id}
              </option>
            ))}
          </datalist>
        </label>
        <label class="field grow" for="authorize-scopes">
          <span>Scopes</span>
          <input id="authorize-scopes" value={scopes} placeholder="repo read:user" onInput={(event) => setScopes(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={!userId}>
          Start
        </button>
      </form>
      <ErrorNote error={error ?? followed.error} />
      {authorization && (
        <div class="notice" role="status" aria-live="polite">
          <p>
            Authorization of <strong>{authorization.user_id}</strong> with <strong>{authorization.provider_id}</strong>: <strong>{authorization.status}</strong>
          </p>
          {authorization.url && authorization.status === 'pending' && (
            <p>
              The user opens{' '}
              <a href={authorization.url} target="_blank" rel="noopener noreferrer">
                the authorization page
              </a>{' '}
              <code class="break">{authorization.url}</code> <CopyButton text={authorization.url} label="Copy the authorization URL" />
            </p>
          )}
        </div>
      )}
    </Section>
  );
}
