/** Secrets: names and dates only. A value is written, replaced or deleted, never read back. */
import type { SecretInfo } from '@quiver/engine';
import { useState } from 'preact/hooks';
import { api, type Page } from '../api.js';
import { ErrorNote, ListTable, Loading, Section, useLoad, when } from '../ui.js';

export function SecretsPage() {
  const secrets = useLoad(() => api<Pick<Page<SecretInfo>, 'items'>>('GET', '/admin/secrets'), []);
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState('');

  async function save(event: Event) {
    event.preventDefault();
    setError(undefined);
    try {
      await api('POST', `/admin/secrets/${encodeURIComponent(key)}`, { value, ...(description && { description }) });
      setSaved(`Secret ${key} saved.`);
      // The value leaves the page as soon as it is sent.
      setValue('');
      setKey('');
      setDescription('');
      secrets.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  async function remove(secret: SecretInfo) {
    if (!confirm(`Delete the secret ${secret.key}? Tools that need it will stop working.`)) return;
    try {
      await api('DELETE', `/admin/secrets/${encodeURIComponent(secret.id)}`);
      setSaved(`Secret ${secret.key} deleted.`);
      secrets.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <div>
      <h1>Secrets</h1>
      <p class="muted">Values are write-only: the engine never returns them, to anyone. Setting an existing name replaces its value.</p>
      <Section title="Set a secret">
        <form class="row-form" onSubmit={save} aria-label="Set a secret">
          <label class="field" for="secret-key">
            <span>Name</span>
            <input
              id="secret-key"
              required
              pattern="[A-Za-z_][A-Za-z0-9_]*"
              value={key}
              placeholder="TRACKING_API_KEY"
              onInput={(event) => setKey(event.currentTarget.value)}
            />
          </label>
          <label class="field" for="secret-value">
            <span>Value</span>
            <input id="secret-value" type="password" autocomplete="off" required value={value} onInput={(event) => setValue(event.currentTarget.value)} />
          </label>
          <label class="field grow" for="secret-description">
            <span>Description</span>
            <input id="secret-description" value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
          </label>
          <button type="submit">Save</button>
        </form>
        <p role="status">{saved}</p>
        <ErrorNote error={error} />
      </Section>
      <Section title="Secrets">
        <ErrorNote error={secrets.error} />
        {secrets.loading && !secrets.data && <Loading what="secrets" />}
        {secrets.data && (
          <ListTable
            columns={['Name', 'Value', 'Description', 'Updated', 'Last read']}
            actions
            items={secrets.data.items}
            row={(secret) => (
              <tr key={secret.id}>
                <td>
                  <code>{secret.key}</code>
                </td>
                <td class="muted">hidden</td>
                <td>{secret.description}</td>
                <td>{when(secret.updated_at)}</td>
                <td>{when(secret.last_accessed_at)}</td>
                <td>
                  <button
                    type="button"
                    class="small"
                    aria-label={`Replace ${secret.key}`}
                    onClick={() => {
                      setKey(secret.key);
                      document.getElementById('secret-value')?.focus();
                    }}
                  >
                    Replace
                  </button>{' '}
                  <button type="button" class="small danger" aria-label={`Delete ${secret.key}`} onClick={() => void remove(secret)}>
                    Delete
                  </button>
                </td>
              </tr>
            )}
            empty="No secrets yet."
          />
        )}
      </Section>
    </div>
  );
}
