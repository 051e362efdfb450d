/**
 * `quiver toolkit init <Name>`: a toolkit folder to start from, written for `--toolkit-path`: one tool with a
 * handler (no upstream, no credentials), its test on node's own test runner, a package.json and a README.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { checkNewToolkitName } from './toolkit-name.js';
import { UsageError } from './usage-error.js';

export interface InitOptions {
  name: string;
  /** The folder to write; default `./<name>`. */
  out?: string;
  cwd: string;
  /** The version of quiver-engine the toolkit is written against. */
  engineVersion: string;
}

/** Writes the folder; returns its path and the files written. */
export function initToolkit({ name, out, cwd, engineVersion }: InitOptions): { folder: string; files: string[] } {
  checkNewToolkitName(name, 'Greeter');
  const folder = resolve(cwd, out ?? name);
  if (existsSync(folder) && readdirSync(folder).length) throw new UsageError(`${folder} exists and is not empty`);
  mkdirSync(folder, { recursive: true });
  const shown = relative(cwd, folder) || '.';
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify(
      {
        name: packageNameOf(name),
        version: '0.1.0',
        private: true,
        description: `${name}: a Quiver toolkit`,
        type: 'module',
        main: 'index.js',
        scripts: { test: 'node --test' },
        devDependencies: { 'quiver-engine': engineVersion },
      },
      null,
      2,
    )}\n`,
    'index.js': indexJs(name),
    'index.test.js': testJs(name),
    'README.md': readme(name, shown),
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(join(folder, file), text);
  return { folder, files: Object.keys(files) };
}

/** Greeter -> quiver-toolkit-greeter; BillingApi -> quiver-toolkit-billing-api */
const packageNameOf = (name: string) => `quiver-toolkit-${name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`;

const indexJs = (name: string) => `// The ${name} toolkit. Quiver loads it with --toolkit-path (or toolkitPaths in its config file).
import { defineTool, defineToolkit } from 'quiver-engine';

/** A tool with behaviour of its own: it calls no upstream and needs no credentials. */
export const sayHello = defineTool({
  name: 'SayHello',
  description: 'Greets someone by name, in English or French.',
  // The input as JSON Schema: Quiver checks every call against it before the handler runs.
  parameters: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, description: 'Who to greet.' },
      language: { type: 'string', enum: ['en', 'fr'], description: 'Language of the greeting. Default: en.' },
    },
    required: ['name'],
  },
  output: 'The greeting, as text.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  // A result is { value } or { error: { kind, message, can_retry } }.
  handler: async ({ name, language = 'en' }) => ({ value: \`\${language === 'fr' ? 'Bonjour' : 'Hello'}, \${name}!\` }),
});

export default defineToolkit({
  name: '${name}',
  version: '0.1.0',
  description: 'Greets people. (Say here what the toolkit is for: search reads it.)',
  tools: [sayHello],
});
`;

const testJs = (name: string) => `// node --test (npm test): the tool's handler called as Quiver calls it, after the input checks.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import toolkit from './index.js';

const tool = (name) => toolkit.tools.find((each) => each.name === name);
const context = { baseUrl: toolkit.baseUrl, secrets: {} };

test('${name} holds SayHello', () => {
  assert.equal(toolkit.name, '${name}');
  assert.deepEqual(
    toolkit.tools.map((each) => each.name),
    ['SayHello'],
  );
});

test('SayHello greets in the language asked for', async () => {
  assert.deepEqual(await tool('SayHello').handler({ name: 'Ada' }, context), { value: 'Hello, Ada!' });
  assert.deepEqual(await tool('SayHello').handler({ name: 'Ada', language: 'fr' }, context), { value: 'Bonjour, Ada!' });
});
`;

const readme = (name: string, folder: string) => `# ${name}

A [Quiver](https://www.npmjs.com/package/quiver-engine) toolkit: \`index.js\` default-exports the toolkit
(\`defineToolkit\`), each tool made with \`defineTool\`: a name, a description a model chooses it by, its input as
JSON Schema, and a handler (or an \`http\` binding to an upstream operation).

Try it:

\`\`\`sh
quiver tools list --toolkit-path ${folder} --toolkit ${name}
quiver call ${name}.SayHello --input '{"name": "Ada"}' --toolkit-path ${folder}
quiver mcp --toolkit-path ${folder}          # or serve; or "toolkitPaths": ["${folder}"] in quiver.config.json
\`\`\`

Test it: \`npm install\` (for \`quiver-engine\`), then \`npm test\` (node's own test runner).

A tool that calls an upstream instead declares \`http: { method: 'GET', path: '/items/{item_id}' }\`, gives
each parameter's place (\`in: 'path'\`, \`'query'\`, \`'header'\` or \`'body'\` in its schema) and the toolkit's
\`baseUrl\`; secrets it needs go in \`requirements: { secrets: [{ key: 'MY_API_KEY' }] }\`, and reach a handler in
\`context.secrets\`.
`;
