/**
 * MCP sign-ins (admins): the grants of the engine's OAuth authorization server, i.e. which person let which
 * MCP client use the engine, with what scopes, signed in how; and ending one, which stops its tokens at once.
 */
import type { GrantInfo as Grant } from '@quiver/engine';
import { useState } from 'preact/hooks';
import { api, query, type Page } from '../api.js';
import { ErrorNote, ListTable, Loading, Section, useLoad, when } from '../ui.js';

const limit = 100;

/** The client as people know it: its registered name, else its id (a metadata document's URL). */
const clientLabel = (grant: Grant) => grant.client_name ?? grant.client_id;

export function GrantsPage() {
  const [userFilter, setUserFilter] = useState('');
  const [clientFilter, setClientFilter] = useState('');
  const grants = useLoad(
    () => api<Page<Grant>>('GET', `/admin/oauth_grants${query({ user_id: userFilter || undefined, client_id: clientFilter || undefined, limit })}`),
    [userFilter, clientFilter],
  );
  const [error, setError] = useState<unknown>();
  const [ended, setEnded] = useState('');

  async function end(grant: Grant) {
    const what = `${clientLabel(grant)} for ${grant.user_id}`;
    if (!confirm(`End the sign-in of ${what}? Its access and refresh tokens stop working at once: the client must sign in again.`)) return;
    setError(undefined);
    try {
      await api('DELETE', `/admin/oauth_grants/${encodeURIComponent(grant.id)}`);
      setEnded(`Ended the sign-in of ${what}.`);
      grants.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  const filtered = Boolean(userFilter || clientFilter);
  const page = grants.data;
  return (
    <div>
      <h1>MCP sign-ins</h1>
      <p class="muted">
        The MCP clients people signed in with, at the engine's OAuth authorization server, and allowed to use its tools. Ending a sign-in stops the client's
        tokens at once: it must sign in again.
      </p>
      <Section
        title="Sign-ins"
        actions={
          <div class="toolbar">
            <label class="field inline" for="grants-user">
              <span>Only user</span>
              <input id="grants-user" type="search" value={userFilter} onInput={(event) => setUserFilter(event.currentTarget.value)} />
            </label>
            <label class="field inline" for="grants-client">
              <span>Only client id</span>
              <input id="grants-client" type="search" value={clientFilter} onInput={(event) => setClientFilter(event.currentTarget.value)} />
            </label>
          </div>
        }
      >
        <p role="status">{ended}</p>
        <ErrorNote error={grants.error ?? error} />
        {grants.loading && !page && <Loading what="sign-ins" />}
        {page && (
          <ListTable
            columns={['Client', 'User', 'Scopes', 'Resource', 'Signed in with', 'Created', 'Last used']}
            actions
            items={page.items}
            row={(grant) => (
              <tr key={grant.id}>
                <td>
                  {grant.client_name ?? <span class="muted">unnamed</span>}
                  <br />
                  <code class="break">{grant.client_id}</code>
                </td>
                <td>{grant.user_id}</td>
                <td>{grant.scopes.join(' ') || '—'}</td>
                <td>
                  <ul class="plain">
                    {grant.resources.map((resource) => (
                      <li key={resource}>
                        <code class="break">{resource}</code>
                      </li>
                    ))}
                  </ul>
                </td>
                <td>
                  {grant.api_key ? (
                    <>
                      key <code>{grant.api_key.prefix}…</code> {grant.api_key.name}
                      {grant.api_key.revoked && <span class="badge danger">revoked</span>}
                    </>
                  ) : (
                    'identity provider'
                  )}
                </td>
                <td>{when(grant.created_at)}</td>
                <td>{when(grant.last_used_at)}</td>
                <td>
                  <button
                    type="button"
                    class="small danger"
                    aria-label={`End the sign-in of ${clientLabel(grant)} for ${grant.user_id}`}
                    onClick={() => void end(grant)}
                  >
                    End
                  </button>
                </td>
              </tr>
            )}
            empty={filtered ? 'No sign-ins match.' : 'No MCP client has signed in yet.'}
          />
        )}
        {page && page.total_count > page.items.length && (
          <p class="muted">
            The newest {page.items.length} of {page.total_count}: filter by user or client to find the others.
          </p>
        )}
      </Section>
    </div>
  );
}
