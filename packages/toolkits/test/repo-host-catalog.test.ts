/**
 * The committed RepoHostApi catalog as the runtime loads it: its shape (818 tools, 62 mode-driven with
 * self-contained body schemas, the GitHub binding on every tool), the quality rules of its descriptions,
 * spot checks against the specification, and a request built for every tool.
 */
import { annotationsOf, buildRequest, checkInput, validate, type JsonSchema, type Parameter, type Tool } from '@quiver/core';
import { subschemas } from '@quiver/openapi';
import { repoHost, toolkits } from '@quiver/toolkits';
import { describe, expect, it } from 'vitest';

const tools = new Map(repoHost.tools.map((tool) => [tool.name, tool]));
const tool = (name: string): Tool => {
  const found = tools.get(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};
const param = (toolName: string, name: string): Parameter => {
  const found = tool(toolName).parameters.find((p) => p.name === name);
  if (!found) throw new Error(`${toolName} has no parameter ${name}`);
  return found;
};
/** The built request; a refusal fails the test with its message. */
const built = (...args: Parameters<typeof buildRequest>) => {
  const request = buildRequest(...args);
  if ('error' in request) throw new Error(request.error.message);
  return request;
};

const modeDriven = repoHost.tools.filter((t) => t.requestBody);

describe('RepoHostApi catalog', () => {
  it('is a built-in toolkit with 818 tools, 62 of them mode-driven', () => {
    expect(toolkits).toContain(repoHost);
    expect(repoHost.name).toBe('RepoHostApi');
    expect(repoHost.version).toBe('1.0.0');
    expect(repoHost.baseUrl).toBe('https://api.github.com');
    expect(repoHost.tools).toHaveLength(818);
    expect(new Set(repoHost.tools.map((t) => t.name)).size).toBe(818);
    expect(modeDriven).toHaveLength(62);
  });

  it('gives mode-driven tools self-contained request-body schemas that compile', () => {
    for (const t of modeDriven) {
      const text = JSON.stringify(t.requestBody);
      expect(text, t.name).not.toContain('$ref');
      for (const node of subschemas(t.requestBody!.schema)) {
        for (const keyword of ['example', 'examples', 'nullable', 'default']) expect(node[keyword], `${t.name} ${keyword}`).toBeUndefined();
      }
      expect(t.requestBody!.contentType).toBe('application/json');
      expect(typeof t.requestBody!.schema.description, t.name).toBe('string');
      expect(t.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['mode', 'request_body']));
      // Compiling and running the validator proves the schema is one Ajv accepts.
      expect(() => validate(t.requestBody!.schema, {}), t.name).not.toThrow();
    }
  });

  it('binds every tool to GitHub: optional server URL secret, base URL from it, fixed headers, OAuth provider', () => {
    for (const t of repoHost.tools) {
      expect(t.requirements.secrets, t.name).toEqual([{ key: 'GIT_SERVER_URL', optional: true }]);
      expect(t.requirements.oauth2?.provider, t.name).toBe('github');
      expect(Array.isArray(t.requirements.oauth2?.scopes), t.name).toBe(true);
      expect(t.http?.baseUrlSecret, t.name).toBe('GIT_SERVER_URL');
      expect(t.http?.headers, t.name).toEqual({ accept: 'application/vnd.github+json', 'user-agent': 'quiver' });
      expect(t.output.schema, t.name).toBeUndefined();
    }
  });

  it('gives every array parameter its item type and declares no defaults', () => {
    const arrays = repoHost.tools.flatMap((t) => t.parameters.filter((p) => p.schema.type === 'array').map((p) => [t.name, p] as const));
    expect(arrays.length).toBeGreaterThan(40);
    for (const [name, p] of arrays) expect(p.schema.items, `${name}.${p.name}`).toBeDefined();
    for (const t of repoHost.tools) for (const p of t.parameters) expect(p.schema.default, `${t.name}.${p.name}`).toBeUndefined();
  });

  it('writes short plain descriptions without links, HTML or markdown emphasis', () => {
    const texts = repoHost.tools.flatMap((t) => [
      t.description,
      t.output.description,
      ...t.parameters.map((p) => p.description),
      ...subschemas(t.requestBody?.schema).flatMap((node) => (typeof node.description === 'string' ? [node.description] : [])),
    ]);
    for (const text of texts) {
      expect(text).not.toContain('](');
      expect(text).not.toMatch(/<a\s|<\/a>|<br\s*\/?>|<\/?p>/i);
      expect(text).not.toMatch(/https?:\/\//);
      expect(text).not.toContain('**');
    }
    for (const t of repoHost.tools) {
      expect(t.description.length, t.name).toBeLessThanOrEqual(400);
      // Authentication boilerplate: the scopes are data (requirements.oauth2.scopes), named once in our closing "Needs ..." sentence.
      expect(t.description, t.name).not.toMatch(/must (authenticate|use) .*token|OAuth app tokens|GitHub Apps must have/i);
      expect(t.description.replace(/ Needs [^.]*\bscopes?\.$/, ''), t.name).not.toMatch(/\bscopes?\b/i);
      for (const p of t.parameters.filter((p) => p.in)) expect(p.description.length, `${t.name}.${p.name}`).toBeLessThanOrEqual(200);
    }
    expect(new Set(repoHost.tools.map((t) => t.description)).size, 'distinct tool descriptions').toBe(818);
  });

  it('places CreateGitTag tagger fields in a nested body object', () => {
    const t = tool('CreateGitTag');
    expect(t.http).toMatchObject({ method: 'POST', path: '/repos/{owner}/{repo}/git/tags', contentType: 'application/json' });
    expect(param('CreateGitTag', 'author_of_tag_name')).toMatchObject({ in: 'body', upstream: 'tagger.name', required: false });
    expect(param('CreateGitTag', 'tagger_email')).toMatchObject({ in: 'body', upstream: 'tagger.email' });
    expect(param('CreateGitTag', 'tagging_date')).toMatchObject({ in: 'body', upstream: 'tagger.date', schema: { type: 'string', format: 'date-time' } });
    // The catalog declares no enum here: the values the description enumerates become the enum.
    expect(param('CreateGitTag', 'tag_object_type').schema).toEqual({ type: 'string', enum: ['commit', 'tree', 'blob'] });
    expect(param('CreateGitTag', 'tag_object_type').description).not.toContain('One of');

    const request = built(
      { ...t, http: t.http! },
      {
        repository_owner: 'octo',
        repository_name: 'hello',
        tag_name: 'v1.0.0',
        tag_message: 'Release',
        git_object_sha: 'abc123',
        tag_object_type: 'commit',
        author_of_tag_name: 'Mona',
        tagger_email: 'mona@example.com',
        tagging_date: '2024-05-01T10:00:00Z',
      },
      'https://api.github.com',
    );
    expect(request.url).toBe('https://api.github.com/repos/octo/hello/git/tags');
    expect(JSON.parse(request.body!)).toEqual({
      tag: 'v1.0.0',
      message: 'Release',
      object: 'abc123',
      type: 'commit',
      tagger: { name: 'Mona', email: 'mona@example.com', date: '2024-05-01T10:00:00Z' },
    });
  });

  it('checks the spec-listed parameters of several tools', () => {
    expect(param('CreateRepohostCommitStatus', 'status_state')).toMatchObject({ in: 'body', upstream: 'state', required: true, schema: { type: 'string' } });
    expect(param('CreateRepohostCommitStatus', 'status_state').schema.enum).toEqual(['error', 'failure', 'pending', 'success']);
    expect(param('AddRepohostReleaseReaction', 'reaction_type').schema.enum).toEqual(['+1', 'laugh', 'heart', 'hooray', 'rocket', 'eyes']);
    expect(param('AddReactionToRepohostIssue', 'reaction_type_to_add').schema.enum).toEqual([
      '+1',
      '-1',
      'laugh',
      'confused',
      'heart',
      'hooray',
      'rocket',
      'eyes',
    ]);
    expect(param('CreateRunnerGroupForOrg', 'accessible_repository_ids').schema).toMatchObject({ type: 'array', items: { type: 'integer' } });
    expect(param('AddCustomLabelsToRunner', 'custom_labels').schema).toMatchObject({ type: 'array', items: { type: 'string' } });

    const convert = tool('ConvertMemberToOutsideCollaborator');
    expect(convert.http).toMatchObject({ method: 'PUT', path: '/orgs/{org}/outside_collaborators/{username}' });
    expect(param('ConvertMemberToOutsideCollaborator', 'perform_asynchronously')).toMatchObject({ in: 'body', upstream: 'async', schema: { type: 'boolean' } });
    expect(convert.description).toMatch(/outside collaborator/);

    const template = tool('CreateRepoFromTemplate');
    expect(template.http).toMatchObject({ method: 'POST', path: '/repos/{template_owner}/{template_repo}/generate' });
    expect(param('CreateRepoFromTemplate', 'template_repository_owner')).toMatchObject({ in: 'path', upstream: 'template_owner', required: true });
    expect(param('CreateRepoFromTemplate', 'new_repository_name')).toMatchObject({ in: 'body', upstream: 'name', required: true });
    expect(param('CreateRepoFromTemplate', 'repository_owner')).toMatchObject({ in: 'body', upstream: 'owner', required: false });
    expect(template.output.description).toBe('The created repository.');
  });

  it('uses the content type each operation takes', () => {
    expect(tool('RenderMarkdownPlain').http).toMatchObject({ method: 'POST', path: '/markdown/raw', contentType: 'text/plain' });
    expect(tool('RenderMarkdown').http?.contentType).toBe('application/json');
    expect(tool('AddRepohostAuthorizedSshKey').http?.contentType).toBe('application/x-www-form-urlencoded');
    expect(tool('ToggleMaintenanceMode').http?.contentType).toBe('application/x-www-form-urlencoded');
  });

  it('extracts token scopes from the descriptions', () => {
    const scopes = (name: string) => tool(name).requirements.oauth2?.scopes;
    expect(scopes('CreateOrgRunnerRegistrationToken')).toEqual(['admin:org']);
    expect(scopes('CreateRepoRegistrationToken')).toEqual(['repo']);
    expect(scopes('AddCustomLabelsToRunner')).toEqual(['manage_runners:enterprise']);
    expect(scopes('AddReactionToRepohostTeamDiscussion')).toEqual(['write:discussion']);
    expect(scopes('CreateSshSigningKeyRepohost')).toEqual(['write:ssh_signing_key']);
    expect(scopes('CreateRepoDependencySnapshot')).toEqual(['repo']);
    expect(scopes('CreateRepoFromTemplate')).toEqual(['public_repo', 'repo']);
    expect(scopes('AcceptRepohostRepoInvitation')).toEqual([]);
  });

  it('corrects annotations only where the method misleads', () => {
    expect(annotationsOf(tool('RenderMarkdown'))).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(annotationsOf(tool('UnlockRepohostIssue'))).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(annotationsOf(tool('CreateGitTag'))).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(annotationsOf(tool('DeleteGitReference'))).toMatchObject({ destructiveHint: true });
  });

  it('accepts both shapes of the branch-protection bodies', () => {
    const schema = tool('SetBranchStatusCheckContexts').requestBody!.schema;
    expect(validate(schema, { contexts: ['ci'] })).toEqual([]);
    expect(validate(schema, ['ci'])).toEqual([]);
    expect(validate(schema, { context: ['ci'] })).not.toEqual([]);
  });
});

/** A valid value of a parameter's schema. */
function sampleOf(schema: JsonSchema): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'integer':
    case 'number':
      return 7;
    case 'boolean':
      return true;
    case 'array':
      return [sampleOf(schema.items as JsonSchema)];
    default:
      return (
        { 'date-time': '2024-05-01T10:00:00Z', date: '2024-05-01', email: 'mona@example.com', uri: 'https://example.com/x' }[schema.format as string] ??
        'sample'
      );
  }
}

describe('RepoHostApi requests', () => {
  it.each(repoHost.tools.map((t) => [t.name, t] as const))('%s builds its request from a minimal valid input', (_name, t) => {
    // Required parameters, plus the path parameters a URL needs (optional on mode-driven tools until execute).
    const input: Record<string, unknown> = Object.fromEntries(
      t.parameters.filter((p) => p.in && (p.required || p.in === 'path')).map((p) => [p.name, sampleOf(p.schema)]),
    );
    if (t.requestBody) input.mode = 'execute';
    expect(checkInput(t, input)).toBeUndefined();

    const http = t.http!;
    for (const baseUrl of ['https://api.github.com', 'https://ghe.example.com/api/v3']) {
      const request = built({ ...t, http }, input, baseUrl, t.requestBody ? {} : undefined);
      expect(request.method).toBe(http.method);
      const pathname = request.url.slice(baseUrl.length).split('?')[0]!;
      expect(pathname).not.toMatch(/[{}]/);
      const template = new RegExp(`^${http.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`);
      expect(pathname).toMatch(template);
      expect(request.url.startsWith(baseUrl)).toBe(true);
      expect(request.headers).toMatchObject({ accept: 'application/vnd.github+json', 'user-agent': 'quiver' });
    }
  });
});
