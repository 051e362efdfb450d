/** API keys (admins): create one (shown this once), list, revoke. */
import { useState } from 'preact/hooks';
import { api, type Page } from '../api.js';
import { ErrorNote, ListTable, Loading, Section, useLoad, when } from '../ui.js';

interface KeyInfo {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function KeysPage({ ownKeyId }: { ownKeyId: string }) {
  const keys = useLoad(() => api<Page<KeyInfo>>('GET', '/admin/api_keys?limit=100'), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | undefined>();
  const [error, setError] = useState<unknown>();

  async function create(event: Event) {
    event.preventDefault();
    setError(undefined);
    try {
      const answer = await api<KeyInfo & { key: string }>('POST', '/admin/api_keys', { name });
      setCreated({ name: answer.name, key: answer.key });
      setName('');
      keys.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  async function revoke(key: KeyInfo) {
    if (!confirm(`Revoke the key ${key.name} (${key.prefix}…)? Clients using it are refused from now on.`)) return;
    try {
      await api('DELETE', `/admin/api_keys/${encodeURIComponent(key.id)}`);
      keys.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <div>
      <h1>API keys</h1>
      <Section title="Create a key">
        <form class="row-form" onSubmit={create} aria-label="Create a key">
          <label class="field grow" for="key-name">
            <span>Name</span>
            <input
              id="key-name"
              required
              maxLength={100}
              value={name}
              placeholder="what or who uses it"
              onInput={(event) => setName(event.currentTarget.value)}
            />
          </label>
          <button type="submit">Create</button>
        </form>
        {created && (
          <div class="notice" role="status">
            <p>
              The key <strong>{created.name}</strong>, shown this once: copy it now.
            </p>
            <input class="mono wide" readOnly aria-label="The new key" value={created.key} onFocus={(event) => event.currentTarget.select()} />
            <button type="button" class="small" onClick={() => setCreated(undefined)}>
              Done, hide it
            </button>
          </div>
        )}
        <ErrorNote error={error} />
      </Section>
      <Section title="Keys">
        <ErrorNote error={keys.error} />
        {keys.loading && !keys.data && <Loading what="keys" />}
        {keys.data && (
          <ListTable
            columns={['Name', 'Prefix', 'Created', 'Last used', 'State']}
            actions
            items={keys.data.items}
            row={(key) => (
              <tr key={key.id}>
                <td>
                  {key.name}
                  {key.id === ownKeyId && <span class="badge">this session</span>}
                </td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>{when(key.created_at)}</td>
                <td>{when(key.last_used_at)}</td>
                <td>{key.revoked_at ? `revoked ${when(key.revoked_at)}` : 'active'}</td>
                <td>
                  {!key.revoked_at && key.id !== ownKeyId && (
                    <button type="button" class="small danger" onClick={() => void revoke(key)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            )}
          />
        )}
      </Section>
    </div>
  );
}
