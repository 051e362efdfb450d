import { clientFor } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxToken, startSandbox, type Sandbox } from '../../src/sandbox.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

describe('the sandbox code host', () => {
  it('serves RepoHostApi, takes the sandbox token as octocat, and shows the demo repository, label and issue', async () => {
    const call = clientFor(sandbox.baseUrls.RepoHostApi!, sandboxToken);
    expect((await call('GET', '/user')).body.login).toBe('octocat');
    const repo = await call('GET', '/repos/octocat/hello-world');
    expect(repo.body).toMatchObject({ full_name: 'octocat/hello-world', open_issues_count: 1 });
    expect((await call('GET', '/repos/octocat/hello-world/labels/triage')).body.color).toBe('fbca04');
    const [issue] = (await call('GET', '/repos/octocat/hello-world/issues')).body;
    expect(issue.title).toBe('Found a bug');
    expect(issue.labels.map((label: { name: string }) => label.name)).toEqual(['bug', 'triage']);
  });
});
