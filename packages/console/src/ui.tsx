/** Small pieces every page uses: loading data, errors, the chosen user, JSON, times. */
import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ExecutionError } from '@quiver/engine';
import { ApiError } from './api.js';
import { CopyButton } from './copy.js';

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

/** A tool's error: its kind, message, whether to retry, how to fix it, and what it says to the developer. */
export function ErrorDetails({ error }: { error: ExecutionError }) {
  return (
    <dl class="pairs error-detail">
      <div>
        <dt>kind</dt>
        <dd>{error.kind ? <code>{error.kind}</code> : 'none: the engine, not the tool, ended the run'}</dd>
      </div>
      {error.message !== undefined && (
        <div>
          <dt>message</dt>
          <dd>{error.message}</dd>
        </div>
      )}
      {error.can_retry !== undefined && (
        <div>
          <dt>retry</dt>
          <dd>
            {error.can_retry ? 'may be retried' : 'do not retry as is'}
            {error.retry_after_ms !== undefined && `, after ${error.retry_after_ms} ms`}
          </dd>
        </div>
      )}
      {error.additional_prompt_content && (
        <div>
          <dt>how to fix</dt>
          <dd class="pre">{error.additional_prompt_content}</dd>
        </div>
      )}
      {error.developer_message && (
        <div>
          <dt>for the developer</dt>
          <dd>{error.developer_message}</dd>
        </div>
      )}
    </dl>
  );
}

/** A column heading; `class` styles it (`num` right-aligns a number column). */
export type Column = string | { title: string; class: string };

/**
 * A listing: a heading row (and a hidden heading over the action buttons when `actions` is set), one row
 * per item, and a row saying `empty` when there is none. A table wider than its box scrolls sideways in it.
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
  const box = useRef<HTMLDivElement>(null);
  // While it scrolls, the box is a named region that takes the focus, so that the keyboard can scroll it;
  // a table that fits adds no stop to the Tab order. It is named after the card it is in.
  const [scrollName, setScrollName] = useState<string>();
  useEffect(() => {
    const element = box.current!;
    const observer = new ResizeObserver(() => {
      const card = element.closest('section[aria-label]')?.getAttribute('aria-label');
      setScrollName(element.scrollWidth > element.clientWidth ? `${card ?? 'Table'}, scrolls sideways` : undefined);
    });
    observer.observe(element);
    observer.observe(element.firstElementChild!);
    return () => observer.disconnect();
  }, []);
  return (
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: the name comes with the region role, both only while the box scrolls.
    <div class="table-scroll" ref={box} role={scrollName ? 'region' : undefined} aria-label={scrollName} tabIndex={scrollName ? 0 : undefined}>
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
    </div>
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
 * A JSON value with what people do with one: copy it, read it as text, open or close the whole tree, and
 * find a word in it. The tree's objects and arrays are <details>, open to the second level. Past TREE_DEPTH
 * levels the rest of a value is its JSON text: a stored input may nest thousands of levels, and a component
 * per level would exhaust the stack.
 */
const TREE_DEPTH = 16;
/** How deep the tree opens: as it first shows, all of it, or only its top. */
const OPENING = { first: 2, all: TREE_DEPTH, none: 0 } as const;

export function JsonView({ value, label }: { value: unknown; label?: string }) {
  const name = label ?? 'JSON';
  const [raw, setRaw] = useState(false);
  const [opening, setOpening] = useState<{ depth: number; round: number }>({ depth: OPENING.first, round: 0 });
  const [find, setFind] = useState('');
  const text = useMemo(() => prettyJson(value), [value]);
  const wanted = find.trim().toLowerCase();
  const matches = useMemo(() => (wanted ? findMatches(value, wanted) : undefined), [value, wanted]);
  const found = matches?.count ?? 0;
  const openTo = (depth: number) => setOpening(({ round }) => ({ depth, round: round + 1 }));
  return (
    <div class="json-view">
      <div class="json-tools">
        <CopyButton text={text} label={`Copy ${name}`} />
        <button type="button" class="secondary small" aria-pressed={raw} onClick={() => setRaw(!raw)}>
          Raw JSON
        </button>
        {!raw && (
          <>
            <button type="button" class="secondary small" onClick={() => openTo(OPENING.all)}>
              Expand all
            </button>
            <button type="button" class="secondary small" onClick={() => openTo(OPENING.none)}>
              Collapse all
            </button>
            <input
              type="search"
              class="json-find"
              aria-label={`Find in ${name}`}
              placeholder="find"
              value={find}
              onInput={(event) => setFind(event.currentTarget.value)}
            />
            {wanted && (
              <span class="muted" role="status">
                {found ? `${found} ${found === 1 ? 'match' : 'matches'}` : 'no match'}
              </span>
            )}
          </>
        )}
      </div>
      {raw ? (
        <section aria-label={name}>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable block must take focus to be scrolled from the keyboard. */}
          <pre class="code" tabIndex={0}>
            {text}
          </pre>
        </section>
      ) : (
        <section class="json" aria-label={name}>
          <JsonNode key={opening.round} value={value} depth={0} name={undefined} path="" openTo={opening.depth} wanted={wanted} matched={matches?.open} />
        </section>
      )}
    </div>
  );
}

/** Indented JSON text of a value; past the depth JSON.stringify manages, the compact text of `jsonText`. */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? 'null';
  } catch {
    return jsonText(value);
  }
}

/** Whether a key or a leaf's text holds the word sought (already lower-cased). */
const holds = (text: string, wanted: string) => text.toLowerCase().includes(wanted);

/** Where a word is in a value: how many keys and leaves hold it, and the paths of the branches holding any (those open). */
interface Matches {
  count: number;
  open: ReadonlySet<string>;
}

/** One walk of the value, counting the way the tree shows it (its last level as text). */
function findMatches(value: unknown, wanted: string): Matches {
  const open = new Set<string>();
  const count = (node: unknown, path: string, depth: number): number => {
    if (node === null || typeof node !== 'object') return holds(JSON.stringify(node) ?? '', wanted) ? 1 : 0;
    if (depth >= TREE_DEPTH) return holds(jsonText(node), wanted) ? 1 : 0;
    let found = 0;
    for (const [key, child] of Object.entries(node))
      found += (Array.isArray(node) || !holds(key, wanted) ? 0 : 1) + count(child, childPath(path, key), depth + 1);
    if (found) open.add(path);
    return found;
  };
  return { count: count(value, '', 0), open };
}

/** A node's place in the tree, as a JSON pointer: its keys from the root, each told apart even when it holds a `/`. */
const childPath = (path: string, key: string) => `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** The text with each occurrence of the word marked. */
function Marked({ text, wanted }: { text: string; wanted: string }) {
  if (!wanted) return <>{text}</>;
  const parts: (string | JSX.Element)[] = [];
  const lower = text.toLowerCase();
  let at = 0;
  for (let found = lower.indexOf(wanted); found >= 0; found = lower.indexOf(wanted, at)) {
    parts.push(text.slice(at, found), <mark key={found}>{text.slice(found, found + wanted.length)}</mark>);
    at = found + wanted.length;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
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

interface JsonNodeProps {
  value: unknown;
  depth: number;
  name: string | undefined;
  path: string;
  openTo: number;
  wanted: string;
  /** While a word is sought, the paths of the branches holding it. */
  matched: ReadonlySet<string> | undefined;
}

function JsonNode({ value, depth, name, path, openTo, wanted, matched }: JsonNodeProps) {
  const key =
    name === undefined ? null : (
      <span class="json-key">
        <Marked text={name} wanted={wanted} />:{' '}
      </span>
    );
  if (value === null || typeof value !== 'object') {
    const kind = value === null ? 'null' : typeof value;
    return (
      <div class="json-leaf">
        {key}
        <span class={`json-${kind}`}>
          <Marked text={JSON.stringify(value)} wanted={wanted} />
        </span>
      </div>
    );
  }
  if (depth >= TREE_DEPTH) {
    return (
      <div class="json-leaf">
        {key}
        <code class="json-rest">
          <Marked text={jsonText(value)} wanted={wanted} />
        </code>
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
  // While a word is sought, the branches holding it open and the others close.
  const open = matched ? matched.has(path) : depth < openTo;
  return (
    <details open={open}>
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
          <JsonNode
            key={childName}
            value={child}
            depth={depth + 1}
            name={childName}
            path={childPath(path, childName)}
            openTo={openTo}
            wanted={wanted}
            matched={matched}
          />
        ))}
      </div>
    </details>
  );
}
