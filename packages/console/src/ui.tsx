/** Small pieces every page uses: loading data, errors, the chosen user, JSON, times. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';

export interface Loaded<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (and on reload); a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, loading: false }),
      (error: Error) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...state, reload };
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError ? `${error.code}: ` : '';
  return (
    <p class="error" role="alert">
      {code}
      {message}
    </p>
  );
}

/** A column heading; `class` styles it (`num` right-aligns a number column). */
export type Column = string | { title: string; class: string };

/**
 * A listing: a heading row (and a hidden heading over the action buttons when `actions` is set), one row
 * per item, and a row saying `empty` when there is none.
 */
export function ListTable<T>({
  columns,
  actions = false,
  items,
  row,
  empty,
}: {
  columns: readonly Column[];
  actions?: boolean;
  items: readonly T[];
  row: (item: T) => ComponentChildren;
  empty?: string;
}) {
  return (
    <table>
      <thead>
        <tr>
          {columns.map((column) =>
            typeof column === 'string' ? (
              <th scope="col" key={column}>
                {column}
              </th>
            ) : (
              <th scope="col" key={column.title} class={column.class}>
                {column.title}
              </th>
            ),
          )}
          {actions && (
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {items.map(row)}
        {!items.length && empty && (
          <tr>
            <td colSpan={columns.length + (actions ? 1 : 0)} class="muted">
              {empty}
            </td>
          </tr>
        )}
      </tbody>
    </table>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** The user whose tokens and requirements the pages use; not a credential, so kept for the tab. */
const userKey = 'quiver.userId';
const listeners = new Set<(id: string) => void>();
export function useUserId(): [string, (id: string) => void] {
  const [id, setId] = useState(() => sessionStorage.getItem(userKey) ?? '');
  useEffect(() => {
    listeners.add(setId);
    // A user typed between the first render and this effect reached no listener of this component yet.
    setId(sessionStorage.getItem(userKey) ?? '');
    return () => void listeners.delete(setId);
  }, []);
  const set = useCallback((next: string) => {
    sessionStorage.setItem(userKey, next);
    for (const listener of listeners) listener(next);
  }, []);
  return [id, set];
}

/** A key with the user role acts for its own user only: the field shows it and cannot change it. */
let lockedUserId: string | undefined;
export function lockUser(id: string | undefined): void {
  lockedUserId = id;
  if (id) sessionStorage.setItem(userKey, id);
}

/** The acting user; `required` where the tool acts for a user (its OAuth token is that user's). */
export function UserField({ id = 'user-id', required = false }: { id?: string; required?: boolean }) {
  const [userId, setUserId] = useUserId();
  const locked = lockedUserId;
  return (
    <div class="field inline">
      <label for={id}>User</label>
      <input
        id={id}
        value={locked ?? userId}
        readOnly={locked !== undefined}
        required={required}
        aria-describedby={required ? `${id}-why` : undefined}
        placeholder="user id, e.g. alice@example.com"
        onInput={(event) => setUserId(event.currentTarget.value)}
      />
      {required && <small id={`${id}-why`}>required: this tool acts for a user, with that user's authorization</small>}
    </div>
  );
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-label={title}>
      <div class="card-head">
        <h2>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/**
 * A collapsible JSON tree: objects and arrays are <details>, open to the second level. Past TREE_DEPTH
 * levels the rest of a value is its JSON text: a stored input may nest thousands of levels, and a
 * component per level would exhaust the stack.
 */
const TREE_DEPTH = 16;

export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <section class="json" aria-label={label ?? 'JSON'}>
      <JsonNode value={value} depth={0} name={undefined} />
    </section>
  );
}

/** JSON text of a value of any depth: written without recursion, since JSON.stringify recurses. */
function jsonText(value: unknown): string {
  const out: string[] = [];
  // Text to write as it is, or a value still to write; taken from the end.
  const pending: Array<{ text: string } | { value: unknown }> = [{ value }];
  while (pending.length) {
    const next = pending.pop()!;
    if ('text' in next) {
      out.push(next.text);
      continue;
    }
    const item = next.value;
    if (item === null || typeof item !== 'object') {
      out.push(JSON.stringify(item) ?? 'null');
      continue;
    }
    const list = Array.isArray(item);
    const entries: Array<[string | undefined, unknown]> = list ? item.map((child) => [undefined, child]) : Object.entries(item);
    pending.push({ text: list ? ']' : '}' });
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, child] = entries[index]!;
      pending.push({ value: child });
      if (key !== undefined) pending.push({ text: `${JSON.stringify(key)}:` });
      if (index > 0) pending.push({ text: ',' });
    }
    pending.push({ text: list ? '[' : '{' });
  }
  return out.join('');
}

function JsonNode({ value, depth, name }: { value: unknown; depth: number; name: string | undefined }) {
  const key = name === undefined ? null : <span class="json-key">{name}: </span>;
  if (value === null || typeof value !== 'object') {
    const kind = value === null ? 'null' : typeof value;
    return (
      <div class="json-leaf">
        {key}
        <span class={`json-${kind}`}>{JSON.stringify(value)}</span>
      </div>
    );
  }
  if (depth >= TREE_DEPTH) {
    return (
      <div class="json-leaf">
        {key}
        <code class="json-rest">{jsonText(value)}</code>
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  const brackets = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (!entries.length) {
    return (
      <div class="json-leaf">
        {key}
        {brackets.join('')}
      </div>
    );
  }
  return (
    <details open={depth < 2}>
      <summary>
        {key}
        {brackets[0]}
        <span class="muted">
          {' '}
          {entries.length} {Array.isArray(value) ? (entries.length === 1 ? 'item' : 'items') : entries.length === 1 ? 'key' : 'keys'}{' '}
        </span>
        {brackets[1]}
      </summary>
      <div class="json-children">
        {entries.map(([childName, child]) => (
          <JsonNode key={childName} value={child} depth={depth + 1} name={childName} />
        ))}
      </div>
    </details>
  );
}
