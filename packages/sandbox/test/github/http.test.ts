import { clientFor } from '@quiver/test-support/json-client';
import { describe, expect, it } from 'vitest';
import { DOCUMENTATION_URL } from '../../src/github/errors.js';
import { useGithub } from './github.helpers.js';

const hub = useGithub(Date.UTC(2025, 0, 15));

const createRepo = (name = 'hello-world', extra: Record<string, unknown> = {}) => hub.call('POST', '/user/repos', { body: { name, ...extra } });

describe('auth', () => {
  it.each([
    ['no Authorization header', null],
    ['an empty bearer token', 'Bearer '],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
  ])('refuses %s with 401 "Requires authentication", before routing', async (_case, authorization) => {
    for (const path of ['/user', '/no/such/path']) {
      const reply = await hub.call('GET', path, { headers: { authorization } });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ message: 'Requires authentication', documentation_url: DOCUMENTATION_URL });
    }
  });

  it('takes "Bearer" and "token" schemes; each token is a user, strangers numbered in order of first sight', async () => {
    const url = hub.emulator.url;
    hub.emulator.issueToken('first-stranger');
    hub.emulator.issueToken('second-stranger');
    expect((await clientFor(url, 'first-stranger')('GET', '/user')).body.login).toBe('user1');
    const second = await fetch(`${url}/user`, { headers: { authorization: 'token second-stranger' } });
    expect(((await second.json()) as { login: string }).login).toBe('user2');
    expect((await clientFor(url, 'first-stranger')('GET', '/user')).body.login).toBe('user1');
    expect((await hub.as('mona')('GET', '/user')).body.login).toBe('mona');
    expect(hub.emulator.tokenFor('mona')).toBe(hub.emulator.tokenFor('mona'));
    expect((await clientFor(url, hub.emulator.tokenFor('hubot', 'chosen-token'))('GET', '/user')).body.login).toBe('hubot');
  });

  it('records every request, refused ones included, without the authorization header', async () => {
    await hub.call('GET', '/user');
    await hub.call('GET', '/user', { headers: { authorization: null } });
    expect(hub.emulator.requests.map((r) => [r.method, r.path])).toEqual([
      ['GET', '/user'],
      ['GET', '/user'],
    ]);
    expect(hub.emulator.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe('routing', () => {
  it('answers 404 Not Found for an unknown path and for a method the path does not take, as GitHub does', async () => {
    for (const [method, path] of [
      ['GET', '/no/such/thing'],
      ['DELETE', '/user'],
    ] as const) {
      const reply = await hub.call(method, path);
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ message: 'Not Found', documentation_url: DOCUMENTATION_URL });
    }
  });

  it('does not serve operations ghes-3.8 lacks (octokit placeholders)', async () => {
    // enterprise-admin/get-replication-status exists from 3.9 on.
    expect((await hub.call('GET', '/manage/v1/replication/status')).status).toBe(404);
  });

  it('prefers literal segments to parameters: releases/latest is not the release named "latest"', async () => {
    await createRepo();
    const latest = await hub.call('GET', '/repos/octocat/hello-world/releases/latest');
    expect(latest.status).toBe(200);
    const byId = await hub.call('GET', '/repos/octocat/hello-world/releases/latest-one');
    expect(byId.status).toBe(422);
    expect(byId.body.errors[0].field).toBe('release_id');
  });

  it('lets refs, paths and branches span segments where the description says so, sent raw or encoded', async () => {
    await createRepo();
    for (const path of ['/repos/octocat/hello-world/git/ref/heads/main', '/repos/octocat/hello-world/git/ref/heads%2Fmain']) {
      const ref = await hub.call('GET', path);
      expect(ref.status).toBe(200);
      expect(ref.body.ref).toBe('refs/heads/main');
    }
    const content = await hub.call('GET', '/repos/octocat/hello-world/contents/docs/guide/intro.md');
    expect(content.status).toBe(200);
    expect(hub.emulator.requests.at(-1)!.path).toBe('/repos/octocat/hello-world/contents/docs/guide/intro.md');
    // A branch named "feature/x" has protection: the literal tail wins over a longer branch name.
    const protection = await hub.call('GET', '/repos/octocat/hello-world/branches/feature/x/protection');
    expect(protection.status).toBe(200);
    expect(protection.body).toHaveProperty('required_status_checks');
  });

  it('sends non-JSON answers as text with their media type', async () => {
    const html = await fetch(`${hub.emulator.url}/markdown/raw`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.emulator.tokenFor('octocat')}`, 'content-type': 'text/x-markdown' },
      body: '# Hello',
    });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(await html.text()).toMatch(/^<p>/);
  });

  it('answers a redirect where the operation documents one', async () => {
    await createRepo();
    const reply = await hub.call('GET', '/repos/octocat/hello-world/tarball/main');
    expect(reply.status).toBe(302);
    expect(reply.headers.get('location')).toMatch(/^https:/);
  });
});

describe('request validation', () => {
  const errorOf = (reply: { status: number; body: any }) => {
    expect(reply.status).toBe(422);
    expect(reply.body.message).toBe('Validation Failed');
    expect(reply.body.documentation_url).toBe(DOCUMENTATION_URL);
    expect(reply.body.errors).toHaveLength(1);
    return reply.body.errors[0];
  };

  it('names a path parameter of the wrong type', async () => {
    expect(errorOf(await hub.call('GET', '/repos/octocat/hello-world/issues/abc'))).toEqual({
      resource: 'Issue',
      field: 'issue_number',
      code: 'invalid',
      message: "path parameter 'issue_number' must be an integer",
    });
  });

  it('names an unknown query parameter, a bad enum value and a query value of the wrong type', async () => {
    await createRepo();
    expect(errorOf(await hub.call('GET', '/repos/octocat/hello-world/issues', { query: { colour: 'red' } }))).toMatchObject({
      field: 'colour',
      code: 'invalid',
    });
    const state = errorOf(await hub.call('GET', '/repos/octocat/hello-world/issues', { query: { state: 'sleeping' } }));
    expect(state).toMatchObject({ field: 'state', code: 'invalid' });
    expect(state.message).toMatch(/open, closed, all/);
    expect(errorOf(await hub.call('GET', '/repos/octocat/hello-world/issues', { query: { per_page: 'many' } }))).toMatchObject({ field: 'per_page' });
  });

  it('names a missing body field (missing_field), an unknown one and one of the wrong type', async () => {
    await createRepo();
    expect(errorOf(await hub.call('POST', '/repos/octocat/hello-world/labels', { body: { color: 'ff0000' } }))).toMatchObject({
      resource: 'Issue',
      field: 'name',
      code: 'missing_field',
    });
    expect(errorOf(await hub.call('POST', '/repos/octocat/hello-world/labels', { body: { name: 'x', colour: 'ff0000' } }))).toMatchObject({
      field: 'colour',
      code: 'invalid',
    });
    expect(errorOf(await hub.call('POST', '/user/repos', { body: { name: 'x', private: 'yes' } }))).toMatchObject({
      resource: 'Repository',
      field: 'private',
      code: 'invalid',
    });
  });

  it('names the content type when it is not the one the operation takes', async () => {
    const reply = await hub.call('POST', '/user/repos', { rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(errorOf(reply)).toMatchObject({ field: 'content-type', code: 'invalid', message: 'content-type must be application/json' });
  });

  it('answers 400 "Problems parsing JSON" for a body that does not parse', async () => {
    const reply = await hub.call('POST', '/user/repos', { rawBody: '{"name":' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ message: 'Problems parsing JSON', documentation_url: DOCUMENTATION_URL });
  });

  it('accepts a missing body where the description makes it optional, and refuses one where none is taken', async () => {
    await createRepo();
    expect((await hub.call('PATCH', '/repos/octocat/hello-world')).status).toBe(200);
    // Starring takes no body.
    const starred = await hub.call('PUT', '/user/starred/octocat/hello-world', { body: { x: 1 } });
    expect(starred.status).toBe(422);
    expect(starred.body.errors[0].message).toBe('request body must be empty');
  });

  it('reads form-encoded bodies where the operation takes them', async () => {
    const reply = await hub.call('POST', '/setup/api/settings/authorized-keys', {
      rawBody: new URLSearchParams({ authorized_key: 'ssh-rsa AAAA' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(reply.status).toBe(201);
  });

  it('touches no state when a request is refused', async () => {
    await hub.call('POST', '/user/repos', { body: { name: 'kept-out', private: 'yes' } });
    expect((await hub.call('GET', '/repos/octocat/kept-out')).status).toBe(404);
  });
});

describe('paging', () => {
  it('links a page of a longer list to the others in a Link header, on its own origin, the other query parameters kept', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) expect((await createRepo(name)).status).toBe(201);
    const url = (page: number) => `${hub.emulator.url}/user/repos?per_page=2&sort=full_name&page=${page}`;
    const pageOf = (page: number) => hub.call('GET', '/user/repos', { query: { per_page: 2, sort: 'full_name', page } });

    const first = await pageOf(1);
    expect(first.body.map((repo: { name: string }) => repo.name)).toEqual(['a', 'b']);
    expect(first.headers.get('link')).toBe(`<${url(2)}>; rel="next", <${url(3)}>; rel="last"`);
    const middle = await pageOf(2);
    expect(middle.body.map((repo: { name: string }) => repo.name)).toEqual(['c', 'd']);
    expect(middle.headers.get('link')).toBe(`<${url(1)}>; rel="prev", <${url(3)}>; rel="next", <${url(3)}>; rel="last", <${url(1)}>; rel="first"`);
    const last = await pageOf(3);
    expect(last.body.map((repo: { name: string }) => repo.name)).toEqual(['e']);
    expect(last.headers.get('link')).toBe(`<${url(2)}>; rel="prev", <${url(1)}>; rel="first"`);
  });

  it('pages 30 items by default; a list that fits one page has no Link header', async () => {
    expect((await createRepo()).status).toBe(201);
    for (let i = 0; i < 31; i++) expect((await hub.call('POST', '/repos/octocat/hello-world/labels', { body: { name: `label-${i}` } })).status).toBe(201);
    const byDefault = await hub.call('GET', '/repos/octocat/hello-world/labels');
    expect(byDefault.body).toHaveLength(30);
    expect(byDefault.headers.get('link')).toContain('page=2>; rel="next"');
    const whole = await hub.call('GET', '/repos/octocat/hello-world/labels', { query: { per_page: 500 } });
    expect(whole.body.length).toBeGreaterThan(30);
    expect(whole.headers.get('link')).toBeNull();
  });
});

describe('generic answers', () => {
  it('echo the identifying path value into the field it names', async () => {
    expect((await hub.call('GET', '/orgs/acme')).body.login).toBe('acme');
    expect((await hub.call('GET', '/orgs/acme/hooks/42')).body.id).toBe(42);
    expect((await hub.call('GET', '/gists/abc123')).body.id).toBe('abc123');
  });
});

describe('rate limits', () => {
  it('sends the x-ratelimit headers on every answer, counting requests per token', async () => {
    const first = await hub.call('GET', '/user');
    const second = await hub.call('GET', '/no/such/thing');
    expect(first.headers.get('x-ratelimit-limit')).toBe('5000');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4999');
    expect(first.headers.get('x-ratelimit-used')).toBe('1');
    expect(first.headers.get('x-ratelimit-resource')).toBe('core');
    expect(second.headers.get('x-ratelimit-remaining')).toBe('4998');
    // Each token is a user with a budget of its own.
    expect((await hub.as('mona')('GET', '/user')).headers.get('x-ratelimit-remaining')).toBe('4999');
    // The hour starts with the first request (the test clock runs on from 2025-01-15T00:00Z).
    const hourLater = Date.UTC(2025, 0, 15, 1) / 1000;
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(hourLater);
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeLessThan(hourLater + 5);
  });

  it('answers 403 with x-ratelimit-remaining: 0 once the budget is spent, until the hour ends', async () => {
    hub.emulator.setRateLimit({ requests: 2, windowMs: 3_600_000 });
    const allowed = [await hub.call('GET', '/user'), await hub.call('GET', '/user')];
    expect(allowed.map((reply) => reply.status)).toEqual([200, 200]);
    expect(allowed.map((reply) => reply.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0']);
    const limited = await hub.call('POST', '/user/repos', { body: { name: 'x' } });
    expect(limited.status).toBe(403);
    expect(limited.body.message).toMatch(/^API rate limit exceeded for user ID \d+\.$/);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('2');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.UTC(2025, 0, 15) / 1000);
    expect((await hub.call('GET', '/repos/octocat/x')).status).toBe(403);
    hub.emulator.clock.advance(3_600_000);
    expect((await hub.call('GET', '/repos/octocat/x')).status).toBe(404);
  });

  it('answers 429 with Retry-After under a secondary limit', async () => {
    hub.emulator.rateLimit({ kind: 'secondary', retryAfterSeconds: 30 });
    const limited = await hub.call('GET', '/user');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('30');
    expect(limited.body.message).toMatch(/secondary rate limit/);
  });

  it('still refuses an unauthenticated request with 401 first', async () => {
    hub.emulator.setRateLimit({ requests: 0, windowMs: 3_600_000 });
    expect((await hub.call('GET', '/user', { headers: { authorization: null } })).status).toBe(401);
  });
});

describe('logins no account can have (found by fuzzing)', () => {
  it.each([
    ['GET', '/users/pz5%2Fy%60'],
    ['GET', '/user/memberships/orgs/%E2%80%AE'],
    ['PUT', '/orgs/%E2%80%AE/memberships/pz5%2Fy%60'],
  ])('%s %s is GitHub’s 404, not an emulator fault', async (method, path) => {
    const reply = await hub.call(method, path, method === 'PUT' ? { body: {} } : {});
    expect(reply).toMatchObject({ status: 404, body: { message: 'Not Found' } });
  });
});
