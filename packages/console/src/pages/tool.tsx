/** One tool: description, parameters, annotations, requirements for the chosen user, and each format. */
import { useState } from 'preact/hooks';
import { CopyButton } from '../copy.js';
import { formats, loadTool, typeOf, type JsonSchema, type ToolDefinition } from '../tool.js';
import { ErrorNote, ListTable, Loading, Section, useLoad, UserField, useUserId } from '../ui.js';

export function ToolPage({ name }: { name: string }) {
  const [userId] = useUserId();
  const tool = useLoad(() => loadTool(name, userId), [name, userId]);
  return (
    <div>
      <p>
        <a href="#/tools">← All tools</a>
      </p>
      <h1>{name}</h1>
      <ErrorNote error={tool.error} />
      {tool.data ? <ToolDetails tool={tool.data} /> : tool.loading && <Loading what="the tool" />}
    </div>
  );
}

function ToolDetails({ tool }: { tool: ToolDefinition }) {
  const mcp = tool.formatted_schema.mcp;
  const [format, setFormat] = useState<(typeof formats)[number]>('mcp');
  return (
    <>
      <p class="lead">{tool.description}</p>
      <p>
        <span class="muted">Toolkit</span> {tool.toolkit.name} {tool.toolkit.version}{' '}
        <a class="button" href={`#/playground/${encodeURIComponent(tool.qualified_name)}`}>
          Try it in the playground
        </a>{' '}
        <CopyButton text={tool.qualified_name} label="Copy the tool name" />
      </p>
      <Section title="Parameters">
        <ParameterTable schema={mcp.inputSchema} />
      </Section>
      <Section title="Annotations">
        <dl class="pairs">
          {Object.entries(mcp.annotations ?? {}).map(([hint, value]) => (
            <div key={hint}>
              <dt>{hint}</dt>
              <dd>{String(value)}</dd>
            </div>
          ))}
        </dl>
      </Section>
      <Section title="Requirements">
        <UserField id="requirements-user" />
        <Requirements tool={tool} />
      </Section>
      <Section title="Definition" actions={<CopyButton text={() => JSON.stringify(tool.formatted_schema[format], null, 2)} label="Copy the definition" />}>
        <div role="tablist" aria-label="Format" class="tabs">
          {formats.map((name) => (
            <button
              key={name}
              role="tab"
              type="button"
              id={`tab-${name}`}
              aria-selected={format === name}
              aria-controls="definition"
              tabIndex={format === name ? 0 : -1}
              onClick={() => setFormat(name)}
              onKeyDown={(event) => {
                // The tabs pattern: arrows (and Home, End) move to the next tab and show it; Tab leaves the list.
                const at = formats.indexOf(name);
                const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: formats.length - 1 }[event.key];
                if (to === undefined) return;
                event.preventDefault();
                const next = formats[(to + formats.length) % formats.length]!;
                setFormat(next);
                document.getElementById(`tab-${next}`)?.focus();
              }}
            >
              {name === 'mcp' ? 'MCP' : name === 'openai' ? 'OpenAI' : name === 'anthropic' ? 'Anthropic' : 'Arcade'}
            </button>
          ))}
        </div>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable tab panel must take focus to be scrolled from the keyboard (WAI-ARIA tabs pattern). */}
        <pre id="definition" role="tabpanel" aria-labelledby={`tab-${format}`} tabIndex={0} class="code">
          {JSON.stringify(tool.formatted_schema[format], null, 2)}
        </pre>
      </Section>
    </>
  );
}

function Requirements({ tool }: { tool: ToolDefinition }) {
  const { authorization, secrets, met } = tool.requirements;
  if (!authorization && !secrets?.length) return <p>None: the tool needs no token and no secret.</p>;
  return (
    <ul class="plain">
      {authorization && (
        <li>
          <Status ok={authorization.status === 'active'} /> OAuth with <strong>{authorization.provider_id}</strong>
          {authorization.oauth2?.scopes?.length ? ` (scopes ${authorization.oauth2.scopes.join(', ')})` : ''}:{' '}
          {authorization.status === 'active' ? 'the user holds a token' : 'no token for this user yet'}
        </li>
      )}
      {secrets?.map((secret) => (
        <li key={secret.key}>
          <Status ok={secret.met} /> Secret <code>{secret.key}</code>: {secret.met ? 'set' : 'not set'}
        </li>
      ))}
      <li class="muted">{met ? 'Every requirement is met.' : 'Not every requirement is met.'}</li>
    </ul>
  );
}

function Status({ ok }: { ok: boolean }) {
  return <span class={ok ? 'ok' : 'bad'}>{ok ? '✓ ' : '✗ '}</span>;
}

function ParameterTable({ schema }: { schema: JsonSchema }) {
  const properties = Object.entries(schema.properties ?? {});
  if (!properties.length) return <p>No parameters.</p>;
  const required = new Set(schema.required ?? []);
  return (
    <ListTable
      columns={['Name', 'Type', 'Required', 'Description']}
      items={properties}
      row={([name, property]) => (
        <tr key={name}>
          <td>
            <code>{name}</code>
          </td>
          <td>
            {typeOf(property)}
            {property.enum && <div class="muted">one of {property.enum.map((value) => JSON.stringify(value)).join(', ')}</div>}
          </td>
          <td>{required.has(name) ? 'yes' : 'no'}</td>
          <td>{property.description}</td>
        </tr>
      )}
    />
  );
}
