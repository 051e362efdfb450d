/**
 * Connect a client: the MCP URL, how a person's MCP client signs in through the engine's authorization
 * server, and the entry each client wants in its configuration file, as GET /v1/mcp_client_config gives
 * them (the local ones are what `quiver mcp --print-config` prints). Keys are placeholders only: the key
 * this console is signed in with never appears here.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { CopyButton } from '../copy.js';
import { ErrorNote, Loading, Section, useLoad } from '../ui.js';

type ClientId = 'claude' | 'cursor' | 'vscode' | 'other';
/** How the client authenticates, as the engine names its entries. */
type Way = 'sign_in' | 'user_key' | 'service_key';

interface ClientConfig {
  mcp_url: string;
  sign_in: { authorization_server: string; resource_metadata: string; identity_provider: string | null; admin_keys_sign_in: boolean };
  user_header: string;
  clients: { id: ClientId; name: string; http: Record<Way, object>; stdio?: object }[];
}

const ways: { value: Way; label: string }[] = [
  { value: 'sign_in', label: 'by signing its person in' },
  { value: 'user_key', label: 'with a user key' },
  { value: 'service_key', label: 'with a service key for a user' },
];

/** Where each client takes an entry for the MCP URL. */
const remoteWhere: Record<ClientId, ComponentChildren> = {
  claude: (
    <>
      Claude Code: <code>.mcp.json</code> in the project. Claude Desktop and claude.ai take the MCP URL alone, as a custom connector (Settings, Connectors), and
      sign in.
    </>
  ),
  cursor: (
    <>
      <code>~/.cursor/mcp.json</code>, or <code>.cursor/mcp.json</code> in a project.
    </>
  ),
  vscode: (
    <>
      <code>.vscode/mcp.json</code> in the workspace.
    </>
  ),
  other: <>Any other client of streamable HTTP asks for this URL and these headers, in a shape of its own.</>,
};

/** Where each client takes an entry for a server it starts itself. */
const localWhere: Partial<Record<ClientId, ComponentChildren>> = {
  claude: (
    <>
      <code>claude_desktop_config.json</code> (Claude Desktop) or <code>.mcp.json</code> (Claude Code).
    </>
  ),
  cursor: <code>~/.cursor/mcp.json</code>,
  vscode: <code>.vscode/mcp.json</code>,
};

export function ConnectPage({ admin }: { admin: boolean }) {
  const config = useLoad(() => api<ClientConfig>('GET', '/mcp_client_config'), []);
  return (
    <div>
      <h1>Connect a client</h1>
      <p class="lead">
        Any MCP client reaches this engine's tools at one URL, over streamable HTTP. Clients that sign people in need nothing else; servers and scripts send an
        API key.
      </p>
      <ErrorNote error={config.error} />
      {config.loading && !config.data && <Loading what="how to connect" />}
      {config.data && <Connect config={config.data} admin={admin} />}
    </div>
  );
}

function Connect({ config, admin }: { config: ClientConfig; admin: boolean }) {
  const [way, setWay] = useState<Way>('sign_in');
  const { sign_in: signIn, user_header: userHeader } = config;
  const createKey = admin ? (
    <>
      Create one on the <a href="#/keys">API keys</a> page.
    </>
  ) : (
    'An admin creates keys.'
  );
  const local = config.clients.filter((client) => client.stdio);
  return (
    <>
      <Section title="The MCP URL">
        <p class="mcp-url">
          <code class="break">{config.mcp_url}</code> <CopyButton text={config.mcp_url} label="Copy the MCP URL" />
        </p>
        <p class="muted">Streamable HTTP, in the 2025 revisions of MCP and in 2026-07-28; each message is a POST.</p>
      </Section>

      <Section title="How a person signs in">
        <p>A client that speaks MCP authorization is given the URL and nothing else:</p>
        <ol class="flow">
          <li>
            It calls the URL without a token. The engine answers 401, pointing at <code class="break">{signIn.resource_metadata}</code>, which names the
            engine's own authorization server.
          </li>
          <li>It registers itself there and opens the person's browser at the engine's sign-in page.</li>
          <li>
            The person signs in {signIn.identity_provider ? <>at {signIn.identity_provider}, or </> : null}with a user key
            {signIn.admin_keys_sign_in ? ' (or an admin key, as the one person of this engine)' : ''}, then allows the client to use the tools: to read (
            <code>tools:read</code>) and to change data (<code>tools:write</code>).
          </li>
          <li>
            The client gets tokens for this URL and acts as that person. The sign-in then appears on the{' '}
            {admin ? (
              <>
                <a href="#/grants">sign-ins page</a>,
              </>
            ) : (
              'MCP sign-ins page (for admins),'
            )}{' '}
            where ending it stops its tokens at once.
          </li>
        </ol>
        <p>
          A server or script sends an API key instead, as <code>Authorization: Bearer &lt;your API key&gt;</code>, and with a service or admin key the user it
          acts for in <code>{userHeader}</code>. {createKey}
        </p>
      </Section>

      <Section title="Entries for the MCP URL">
        <fieldset class="checks">
          <legend>The client connects</legend>
          {ways.map(({ value, label }) => (
            <label key={value}>
              <input type="radio" name="connect-way" value={value} checked={way === value} onChange={() => setWay(value)} /> {label}
            </label>
          ))}
        </fieldset>
        <p class="muted">
          {way === 'sign_in' && 'No key in the entry: the client signs its person in when it first connects, as above.'}
          {way === 'user_key' && (
            <>
              Every call acts as the key's user. Put the key in place of <code>&lt;your API key&gt;</code> and keep the file to yourself. {createKey}
            </>
          )}
          {way === 'service_key' && (
            <>
              A service (or admin) key acts for the user named in <code>{userHeader}</code>: put the key and the user id in place of the placeholders.{' '}
              {createKey}
            </>
          )}
        </p>
        <div class="entries">
          {config.clients.map((client) => (
            <Entry key={client.id} id={`remote-${client.id}`} title={client.name} where={remoteWhere[client.id]} value={client.http[way]} />
          ))}
        </div>
      </Section>

      <Section title="On this machine, over standard input and output">
        <p class="muted">
          A client can also start a server of its own with <code>quiver mcp</code>, where Quiver is installed: it serves the tools with that machine's settings
          (its configuration file and environment), not through this engine. These entries are what <code>quiver mcp --print-config &lt;client&gt;</code> prints
          where <code>quiver</code> is on the PATH; run it there, with the flags to serve with (such as <code>--sandbox</code>), for the entry of that
          installation.
        </p>
        <div class="entries">
          {local.map((client) => (
            <Entry key={client.id} id={`local-${client.id}`} title={`${client.name} over stdio`} where={localWhere[client.id]} value={client.stdio!} />
          ))}
        </div>
      </Section>
    </>
  );
}

/** One ready-to-paste entry: its client, where it goes, its JSON as `--print-config` prints it, and a copy button. */
function Entry({ id, title, where, value }: { id: string; title: string; where: ComponentChildren; value: object }) {
  const text = JSON.stringify(value, null, 2);
  return (
    <section class="entry" aria-labelledby={`${id}-title`}>
      <div class="entry-head">
        <h3 id={`${id}-title`}>{title}</h3>
        <CopyButton text={text} label={`Copy the ${title} entry`} />
      </div>
      <p class="muted">{where}</p>
      <pre class="code">{text}</pre>
    </section>
  );
}
