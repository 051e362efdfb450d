import { beforeEach, describe, expect, it } from 'vitest';
import { caller, fakeContext, type Caller, type FakeContext } from './fake-context.helpers.js';
import { createRepoSettingsTables, repoSettingsHandlers } from '../../src/github/repo-settings.js';

let ctx: FakeContext;
let call: Caller;
const repo = { owner: 'octocat', repo: 'hello-world' };

beforeEach(() => {
  ctx = fakeContext(createRepoSettingsTables);
  ctx.addRepository('octocat/hello-world');
  ctx.addRepository('octocat/other');
  call = caller(ctx, repoSettingsHandlers);
});

describe('autolinks', () => {
  it('creates with a <num> template, alphanumeric by default, and lists, gets and deletes', () => {
    const created = call('repos/create-autolink', { params: repo, body: { key_prefix: 'TICKET-', url_template: 'https://example.com/TICKET?query=<num>' } });
    expect(created).toMatchObject({ status: 201, body: { key_prefix: 'TICKET-', is_alphanumeric: true } });
    call('repos/create-autolink', { params: repo, body: { key_prefix: 'JIRA-', url_template: 'https://jira.example.com/<num>', is_alphanumeric: false } });
    expect(
      call('repos/list-autolinks', { params: repo }).body.map((a: { key_prefix: string; is_alphanumeric: boolean }) => [a.key_prefix, a.is_alphanumeric]),
    ).toEqual([
      ['TICKET-', true],
      ['JIRA-', false],
    ]);
    const id = String(created.body.id);
    expect(call('repos/get-autolink', { params: { ...repo, autolink_id: id } }).body.id).toBe(created.body.id);
    expect(call.fails('repos/get-autolink', { params: { owner: 'octocat', repo: 'other', autolink_id: id } }).status).toBe(404);
    expect(call('repos/delete-autolink', { params: { ...repo, autolink_id: id } }).status).toBe(204);
    expect(call.fails('repos/delete-autolink', { params: { ...repo, autolink_id: id } }).status).toBe(404);
  });

  it('refuses a template without <num> and a repeated prefix with 422', () => {
    const missing = call.fails('repos/create-autolink', { params: repo, body: { key_prefix: 'T-', url_template: 'https://example.com/' } });
    expect(missing).toMatchObject({ status: 422, errors: [{ field: 'url_template' }] });
    call('repos/create-autolink', { params: repo, body: { key_prefix: 'T-', url_template: 'https://example.com/<num>' } });
    expect(call.fails('repos/create-autolink', { params: repo, body: { key_prefix: 't-', url_template: 'https://example.com/<num>' } }).errors[0]?.code).toBe(
      'already_exists',
    );
  });
});

describe('tag protection', () => {
  it('creates glob patterns, lists and deletes them', () => {
    const created = call('repos/create-tag-protection', { params: repo, body: { pattern: 'v1.*' } });
    expect(created).toMatchObject({ status: 201, body: { pattern: 'v1.*', enabled: true } });
    call('repos/create-tag-protection', { params: repo, body: { pattern: 'release-*' } });
    expect(call('repos/list-tag-protection', { params: repo }).body.map((t: { pattern: string }) => t.pattern)).toEqual(['v1.*', 'release-*']);
    const id = String(created.body.id);
    expect(call('repos/delete-tag-protection', { params: { ...repo, tag_protection_id: id } }).status).toBe(204);
    expect(call.fails('repos/delete-tag-protection', { params: { ...repo, tag_protection_id: id } }).status).toBe(404);
    expect(call('repos/list-tag-protection', { params: { owner: 'octocat', repo: 'other' } }).body).toEqual([]);
  });
});
