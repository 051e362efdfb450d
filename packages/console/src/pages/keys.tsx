/** API keys (admins): create one of any role (shown this once), list, revoke. */
import { useState } from 'preact/hooks';
import { api, type Me, type Page } from '../api.js';
import { CopyButton } from '../copy.js';
import { ErrorNote, ListTable, Loading, Section, useLoad, when } from '../ui.js';

type Role = Me['role'];

/** What a key of each role may do, as the engine enforces it (README, Security). */
const roleScopes: Record<Role, string> = {
  admin: 'everything, administration included',
  service: 'tools, schedules and authorizations for any user; no administration',
  user: 'tools as one user only',
};

interface KeyInfo {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  user_id: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function KeysPage({ ownKeyId }: { ownKeyId: string }) {
  const keys = useLoad(() => api<Page<KeyInfo>>('GET', '/admin/api_keys?limit=100'), []);
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('admin');
  const [userId, setUserId] = useState('');
  const [created, setCreated] = useState<(KeyInfo & { key: string }) | undefined>();
  const [error, setError] = useState<unknown>();

  async function create(event: Event) {
    event.preventDefault();
    setError(undefined);
    try {
      // The engine refuses a user id on any key but a user key.
      const body = role === 'user' ? { name, role, user_id: userId } : { name, role };
      setCreated(await api<KeyInfo & { key: string }>('POST', '/admin/api_keys', body));
      setName('');
      setUserId('');
      keys.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  async function revoke(key: KeyInfo) {
    const question = `Revoke the key ${key.name} (${key.prefix}…)? Clients using it are refused from now on, and every MCP client signed in with it is signed out and must sign in again.`;
    if (!confirm(question)) return;
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
          <label class="field" for="key-role">
            <span>Role</span>
            <select id="key-role" value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
              {Object.entries(roleScopes).map(([value, scope]) => (
                <option key={value} value={value}>
                  {value}: {scope}
                </option>
              ))}
            </select>
          </label>
          {role === 'user' && (
            <label class="field" for="key-user">
              <span>User</span>
              <input
                id="key-user"
                required
                value={userId}
                placeholder="the user it acts as, e.g. alice@example.com"
                onInput={(event) => setUserId(event.currentTarget.value)}
              />
            </label>
          )}
          <button type="submit">Create</button>
        </form>
        {created && (
          <div class="notice" role="status">
            <p>
              The {created.role} key <strong>{created.name}</strong>
              {created.user_id ? (
                <>
                  {' '}
                  acting as <strong>{created.user_id}</strong>
                </>
              ) : (
                ' for any user'
              )}
              , shown this once: copy it now.
            </p>
            <input class="mono wide" readOnly aria-label="The new key" value={created.key} onFocus={(event) => event.currentTarget.select()} />{' '}
            <CopyButton text={created.key} label="Copy this key" />
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
            columns={['Name', 'Role', 'User', 'Prefix', 'Created', 'Last used', 'State']}
            actions
            items={keys.data.items}
            row={(key) => (
              <tr key={key.id}>
                <td>
                  {key.name}
                  {key.id === ownKeyId && <span class="badge">this session</span>}
                </td>
                <td>{key.role}</td>
                <td>{key.user_id ?? <span class="muted">any</span>}</td>
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
