/**
 * Bad input to RepoHostApi tools, one case per parameter shape, on representative tools: each call
 * fails with an error that names the parameter (or the JSON pointer in a mode-driven body) and the
 * GitHub emulator receives nothing.
 */
import { createClock, startGithubEmulator, type GithubEmulator } from '@quiver/sandbox';
import type { ToolError } from '@quiver/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogTool, recording, RepoHostClient } from './repo-host.helpers.js';

let emulator: GithubEmulator;
let me: RepoHostClient;
const repo = { repository_owner: 'octocat', repository_name: 'hello-world' };

beforeAll(async () => {
  emulator = await startGithubEmulator({ clock: createClock(Date.UTC(2025, 0, 15)) });
  me = new RepoHostClient(emulator, emulator.tokenFor('octocat'));
  // A real repository, so that a call that did go through would succeed rather than 404.
  await me.execute('CreateRepohostRepoForUser', {}, { name: 'hello-world', auto_init: true });
});

afterAll(async () => {
  await me?.close();
  await emulator?.close();
});

/** The error of a call that must fail before anything is sent. */
async function refused(tool: string, input: unknown): Promise<ToolError> {
  const { result, requests } = await recording(emulator, () => me.attempt(tool, input));
  expect(requests, 'requests the emulator received').toEqual([]);
  if (!('error' in result)) throw new Error(`${tool} should have failed but answered ${JSON.stringify(result.value)}`);
  return result.error;
}

describe('parameters', () => {
  const cases: Array<[string, string, Record<string, unknown>, string, RegExp]> = [
    ['missing required (string)', 'CreateRepohostCommitStatus', { ...repo, commit_sha: 'abc' }, 'status_state', /parameter 'status_state' is required/],
    ['missing required (integer, path)', 'AcceptRepohostRepoInvitation', {}, 'invitation_id', /parameter 'invitation_id' is required/],
    ['string given a number', 'CreateRepohostBlob', { ...repo, blob_content: 42 }, 'blob_content', /parameter 'blob_content' must be a string/],
    [
      'integer given a string',
      'GetRepohostIssueDetails',
      { ...repo, issue_identifier: 'one' },
      'issue_identifier',
      /parameter 'issue_identifier' must be an integer/,
    ],
    ['integer given a fraction', 'AcceptRepohostRepoInvitation', { invitation_id: 1.5 }, 'invitation_id', /parameter 'invitation_id' must be an integer/],
    [
      'boolean given a string',
      'ConvertMemberToOutsideCollaborator',
      { organization_name: 'octo-org', repohost_user_handle: 'hubot', perform_asynchronously: 'yes' },
      'perform_asynchronously',
      /parameter 'perform_asynchronously' must be a boolean/,
    ],
    [
      'array given a string',
      'AddCustomLabelsToRunner',
      { enterprise_identifier: 'octo-enterprise', runner_unique_id: 1, custom_labels: 'gpu' },
      'custom_labels',
      /parameter 'custom_labels' must be an array/,
    ],
    [
      'array item of the wrong type (string items)',
      'AddCustomLabelsToRunner',
      { enterprise_identifier: 'octo-enterprise', runner_unique_id: 1, custom_labels: ['gpu', 7] },
      'custom_labels[1]',
      /parameter 'custom_labels\[1\]' must be a string/,
    ],
    [
      'array item of the wrong type (integer items)',
      'CreateRunnerGroupForOrg',
      { organization_name: 'octo-org', runner_group_name: 'g', accessible_repository_ids: [1, 'two'] },
      'accessible_repository_ids[1]',
      /parameter 'accessible_repository_ids\[1\]' must be an integer/,
    ],
    [
      'unknown parameter',
      'GetRepohostRepositoryDetails',
      { ...repo, repository_colour: 'blue' },
      'repository_colour',
      /parameter 'repository_colour' is not a known field/,
    ],
    [
      'a path value that would climb a segment',
      'GetRepohostRepositoryDetails',
      { repository_owner: 'octocat', repository_name: '..' },
      'repository_name',
      /parameter 'repository_name' must not be empty, '\.' or '\.\.'/,
    ],
  ];

  it.each(cases)('%s: %s names %s', async (_case, tool, input, parameter, message) => {
    const error = await refused(tool, input);
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE', can_retry: false });
    expect(error.message).toContain(`Invalid input for ${tool}`);
    expect(error.message).toContain(`'${parameter}'`);
    expect(error.message).toMatch(message);
  });

  it('names every offending parameter of one call at once', async () => {
    const error = await refused('CreateRepohostCommitStatus', {
      repository_owner: 7,
      repository_name: 'hello-world',
      commit_sha: 'abc',
      status_state: 'success',
      extra: true,
    });
    expect(error.message).toMatch(/parameter 'repository_owner' must be a string/);
    expect(error.message).toMatch(/parameter 'extra' is not a known field/);
  });

  it('refuses input that is not an object', async () => {
    for (const input of [null, [], 'owner=octocat']) {
      expect(await refused('GetRepohostRepositoryDetails', input)).toMatchObject({
        kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE',
        message: 'The input must be a JSON object of parameters.',
      });
    }
  });
});

describe('mode-driven tools', () => {
  const issueBody = JSON.stringify({ title: 'Found a bug' });

  it('returns the request-body schema for get_request_schema and sends nothing', async () => {
    const { result, requests } = await recording(emulator, () => me.attempt('CreateRepohostIssue', { mode: 'get_request_schema' }));
    expect(requests).toEqual([]);
    expect(result).toMatchObject({ value: { request_body_schema: catalogTool('CreateRepohostIssue').requestBody!.schema } });
    expect((result as { value: { instructions: string } }).value.instructions).toContain('repository_owner, repository_name');
  });

  it('requires mode, and only its two values', async () => {
    expect((await refused('CreateRepohostIssue', { ...repo, request_body: issueBody })).message).toMatch(/parameter 'mode' is required/);
    expect((await refused('CreateRepohostIssue', { ...repo, mode: 'run', request_body: issueBody })).message).toMatch(
      /parameter 'mode' must be one of: 'get_request_schema', 'execute'/,
    );
  });

  it('requires the path parameters on execute, naming each one missing', async () => {
    const error = await refused('CreateRepohostIssue', { mode: 'execute', repository_owner: 'octocat', request_body: issueBody });
    expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_RETRY', can_retry: true });
    expect(error.message).toBe('Missing repository_name: required when mode is "execute".');
    const both = await refused('AddLabelsToRepohostIssue', { mode: 'execute', ...repo, request_body: JSON.stringify({ labels: ['bug'] }) });
    expect(both.message).toContain('issue_number');
  });

  it('refuses an empty request_body and repeats the schema', async () => {
    for (const body of [undefined, '', '   ']) {
      const error = await refused('CreateRepohostIssue', { mode: 'execute', ...repo, ...(body === undefined ? {} : { request_body: body }) });
      expect(error).toMatchObject({ kind: 'TOOL_RUNTIME_RETRY', message: 'request_body is required when mode is "execute".' });
      expect(error.additional_prompt_content).toContain('"title"');
    }
  });

  it('refuses a request_body that is not JSON', async () => {
    const error = await refused('CreateRepohostIssue', { mode: 'execute', ...repo, request_body: '{"title": "Found a bug"' });
    expect(error.kind).toBe('TOOL_RUNTIME_RETRY');
    expect(error.message).toMatch(/^request_body is not valid JSON: /);
    expect(error.additional_prompt_content).toContain('Request body schema:');
  });

  it('refuses a request_body that breaks the schema, naming the JSON pointer', async () => {
    const missing = await refused('CreateRepohostIssue', { mode: 'execute', ...repo, request_body: JSON.stringify({ body: 'no title' }) });
    expect(missing.kind).toBe('TOOL_RUNTIME_RETRY');
    expect(missing.message).toContain('/title (title) is required');

    const wrongType = await refused('CreateGitTree', {
      mode: 'execute',
      ...repo,
      request_body: JSON.stringify({ tree: [{ path: 'a.txt', mode: '100644', type: 'blob', content: 5 }] }),
    });
    expect(wrongType.message).toContain('/tree/0/content (tree[0].content) must be a string');

    const badEnum = await refused('CreateGitTree', {
      mode: 'execute',
      ...repo,
      request_body: JSON.stringify({ tree: [{ path: 'a.txt', mode: '777', type: 'blob', content: 'x' }] }),
    });
    expect(badEnum.message).toMatch(/\/tree\/0\/mode \(tree\[0\]\.mode\) must be one of: /);
    expect(badEnum.additional_prompt_content).toContain('Fix these JSON pointers');
  });

  it('sends the request once the body is valid', async () => {
    const { result, requests } = await recording(emulator, () => me.execute('CreateRepohostIssue', repo, { title: 'Found a bug' }));
    expect(result).toMatchObject({ number: 1, title: 'Found a bug' });
    expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /repos/octocat/hello-world/issues']);
  });
});
