/** Sign-in, the navigation a key's role allows, and the page the address names (#/tools, #/workers, …). */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, forgetKey, storedKey, storeKey, whenUnauthorized, type Me } from './api.js';
import { forgetToolIndex } from './tool-index.js';
import { ActivityPage } from './pages/activity.js';
import { AuditPage } from './pages/audit.js';
import { ConnectPage } from './pages/connect.js';
import { ConnectionsPage } from './pages/connections.js';
import { GrantsPage } from './pages/grants.js';
import { KeysPage } from './pages/keys.js';
import { PlaygroundPage } from './pages/playground.js';
import { ScheduledDetailPage, ScheduledPage } from './pages/scheduled.js';
import { SecretsPage } from './pages/secrets.js';
import { ToolPage } from './pages/tool.js';
import { ToolsPage } from './pages/tools.js';
import { WorkersPage } from './pages/workers.js';
import { hashParts } from './route.js';
import { ErrorNote, lockUser } from './ui.js';

type Role = Me['role'];

const pages: { path: string; title: string; roles: Role[] }[] = [
  { path: 'tools', title: 'Tools', roles: ['admin', 'service', 'user'] },
  { path: 'playground', title: 'Playground', roles: ['admin', 'service', 'user'] },
  { path: 'connect', title: 'Connect a client', roles: ['admin', 'service', 'user'] },
  { path: 'connections', title: 'Connections', roles: ['admin'] },
  { path: 'secrets', title: 'Secrets', roles: ['admin'] },
  { path: 'workers', title: 'Workers', roles: ['admin'] },
  { path: 'scheduled', title: 'Scheduled', roles: ['admin', 'service'] },
  { path: 'activity', title: 'Activity', roles: ['admin', 'service', 'user'] },
  { path: 'keys', title: 'API keys', roles: ['admin'] },
  { path: 'grants', title: 'MCP sign-ins', roles: ['admin'] },
  { path: 'audit', title: 'Audit', roles: ['admin'] },
];

function useHash(): string[] {
  const [parts, setParts] = useState(hashParts);
  useEffect(() => {
    const changed = () => setParts(hashParts());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return parts;
}

export function App() {
  const [me, setMe] = useState<Me | undefined>();
  const [checking, setChecking] = useState(Boolean(storedKey()));

  const signOut = () => {
    forgetKey();
    forgetToolIndex();
    lockUser(undefined);
    setMe(undefined);
  };

  async function signIn(key: string): Promise<void> {
    storeKey(key);
    try {
      const who = await api<Me>('GET', '/me');
      lockUser(who.role === 'user' ? who.user_id : undefined);
      setMe(who);
    } catch (error) {
      forgetKey();
      throw error;
    }
  }

  useEffect(() => {
    whenUnauthorized(signOut);
    const key = storedKey();
    if (key)
      signIn(key)
        .catch(() => {})
        .finally(() => setChecking(false));
  }, []);

  if (checking) return <p role="status">Checking the key…</p>;
  if (!me) return <SignIn onSignIn={signIn} />;
  return <Shell me={me} onSignOut={signOut} />;
}

function SignIn({ onSignIn }: { onSignIn: (key: string) => Promise<void> }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="sign-in">
      <form
        class="card"
        aria-label="Sign in"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            await onSignIn(key.trim());
          } catch (caught) {
            setError(caught);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>Quiver console</h1>
        <p>Sign in with an API key. It stays in this browser tab only and is forgotten when you sign out or close the tab.</p>
        <label class="field" for="api-key">
          <span>API key</span>
          <input
            id="api-key"
            type="password"
            autocomplete="off"
            required
            value={key}
            placeholder="qk_…"
            onInput={(event) => setKey(event.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorNote error={error} />
      </form>
    </main>
  );
}

function Shell({ me, onSignOut }: { me: Me; onSignOut: () => void }) {
  const [hashed, detail] = useHash();
  const section = hashed || 'tools';
  const allowed = pages.filter((page) => page.roles.includes(me.role));
  const named = pages.find((page) => page.path === section);
  // A page this key's role cannot use, or none of that name, says so rather than showing another page.
  const refused = named && !allowed.includes(named) ? named : undefined;
  const current = allowed.find((page) => page.path === section) ?? allowed[0]!;
  const main = useRef<HTMLElement>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  // Escape closes the open menu, wherever the focus is, and gives the focus back to its button.
  useEffect(() => {
    if (!menuOpen) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    addEventListener('keydown', closeOnEscape);
    return () => removeEventListener('keydown', closeOnEscape);
  }, [menuOpen]);

  // A new page names itself in the title and moves the focus to its content; the first page leaves the
  // focus at the start of the document, where Tab reaches the skip link first.
  const first = useRef(true);
  useEffect(() => {
    document.title = `${refused ? refused.title : named ? current.title : 'No such page'} · Quiver console`;
    if (!first.current) main.current?.focus();
    first.current = false;
  }, [section, detail]);

  return (
    <>
      {/* A button, not a link: the console routes by the URL fragment, which a link to #main would change. */}
      <button type="button" class="skip" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      {/* On a narrow screen the sections and the signed-in key fold behind the menu button; style.css shows them inline on a wide one. */}
      <header class="top">
        <span class="brand">Quiver</span>
        <button
          type="button"
          class="secondary small menu-button"
          ref={menuButton}
          aria-expanded={menuOpen}
          aria-controls="top-menu"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <div id="top-menu" class={menuOpen ? 'top-menu open' : 'top-menu'}>
          <nav aria-label="Sections">
            <ul>
              {allowed.map((page) => (
                <li key={page.path}>
                  {/* Choosing a page, even the one shown, closes the menu. */}
                  <a href={`#/${page.path}`} aria-current={page === current ? 'page' : undefined} onClick={() => setMenuOpen(false)}>
                    {page.title}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <span class="who">
            {me.key.name} <span class="badge">{me.role}</span>
            {me.user_id && <span class="muted"> as {me.user_id}</span>}
          </span>
        </div>
        <ThemeChoice />
        <button type="button" class="secondary small" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {refused ? <NotForThisKey page={refused} me={me} /> : named ? <Page path={current.path} detail={detail} me={me} /> : <NoSuchPage section={section} />}
      </main>
    </>
  );
}

type Theme = 'system' | 'light' | 'dark';
/** Not a credential: kept in local storage, for every tab and the next visit. */
const themeKey = 'quiver.theme';

/** The theme chosen in this browser; "system" follows the operating system's light or dark setting. */
export function storedTheme(): Theme {
  const stored = localStorage.getItem(themeKey);
  return stored === 'light' || stored === 'dark' ? stored : 'system';
}

/** Fixes the colour scheme, or lets it follow the system: style.css picks its palette and `color-scheme` by `data-theme`. */
export function applyTheme(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

function ThemeChoice() {
  const [theme, setTheme] = useState(storedTheme);
  return (
    <label class="theme">
      <span class="visually-hidden">Theme</span>
      <select
        value={theme}
        onChange={(event) => {
          const chosen = event.currentTarget.value as Theme;
          localStorage.setItem(themeKey, chosen);
          applyTheme(chosen);
          setTheme(chosen);
        }}
      >
        <option value="system">System theme</option>
        <option value="light">Light theme</option>
        <option value="dark">Dark theme</option>
      </select>
    </label>
  );
}

/** A page the key's role cannot use: which roles can, and what this key is. */
function NotForThisKey({ page, me }: { page: (typeof pages)[number]; me: Me }) {
  const roles = page.roles.map((role) => `${role} keys`).join(' and ');
  return (
    <div>
      <h1>{page.title}: not available to this key</h1>
      <p>
        {page.title} is for {roles}. This console is signed in with {me.key.name}, a {me.role} key
        {me.user_id ? ` acting as ${me.user_id}` : ''}: sign out and sign in with such a key to use it.
      </p>
      <p>
        <a href="#/tools">Back to the tools</a>
      </p>
    </div>
  );
}

/** An address that names no page of the console. */
function NoSuchPage({ section }: { section: string }) {
  return (
    <div>
      <h1>No such page</h1>
      <p>The console has no page called “{section}”.</p>
      <p>
        <a href="#/tools">Go to the tools</a>
      </p>
    </div>
  );
}

function Page({ path, detail, me }: { path: string; detail: string | undefined; me: Me }) {
  switch (path) {
    case 'tools':
      return detail ? <ToolPage name={detail} /> : <ToolsPage />;
    case 'playground':
      return <PlaygroundPage name={detail} />;
    case 'connect':
      return <ConnectPage admin={me.role === 'admin'} />;
    case 'connections':
      return <ConnectionsPage />;
    case 'secrets':
      return <SecretsPage />;
    case 'workers':
      return <WorkersPage />;
    case 'scheduled':
      return detail ? <ScheduledDetailPage id={detail} /> : <ScheduledPage />;
    case 'activity':
      return <ActivityPage ownUser={me.role === 'user' ? me.user_id : undefined} detail={detail} />;
    case 'grants':
      return <GrantsPage />;
    case 'audit':
      return <AuditPage />;
    default:
      return <KeysPage ownKeyId={me.key.id} />;
  }
}
