/**
 * In the sandbox a user is connected to a provider on first use. Calls that arrive together for a new
 * user (an agent running tools in parallel) must all be that first use: each succeeds, none is sent to
 * a consent page because another was still connecting.
 */
import { defineToolkit } from '@quiver/core';
import { databases, startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const sandboxToken = 'sandbox-token-first-use-0123';

/** Tells which token it ran with, and needs one from the provider `probe`. */
const probe = defineToolkit(
  {
    name: 'Probe',
    version: '1',
    description: 'Tells which token a call ran with.',
    baseUrl: 'http://127.0.0.1:9',
    tools: [
      {
        name: 'Token',
        description: 'The token of the call.',
        parameters: [],
        output: { description: 'The token, as a length.' },
        requirements: { oauth2: { provider: 'probe', scopes: ['read'] } },
      },
    ],
  },
  { Token: async (_input, context) => ({ value: { sandbox_token: context.token === sandboxToken } }) },
);

describe.each(databases)('first use in the sandbox on $name', ({ name, skip }) => {
  let engine: TestEngine;
  beforeAll(async () => {
    if (!skip) engine = await startTestEngine(name, { toolkits: [probe], credentials: undefined, sandbox: { token: sandboxToken } });
  });
  afterAll(() => engine?.close());

  it.skipIf(skip)('connects a new user once when 10 first calls arrive together, and every call succeeds', async () => {
    const calls = Array.from({ length: 10 }, () => engine.api('POST', '/v1/tools/execute', { tool_name: 'Probe.Token', user_id: 'newcomer' }));
    const answers = await Promise.all(calls);
    expect(answers.map((answer) => answer.body.output)).toEqual(answers.map(() => ({ value: { sandbox_token: true } })));
    const connections = await engine.api('GET', '/v1/admin/user_connections?user_id=newcomer');
    expect(connections.body.items).toHaveLength(1);
  });

  it.skipIf(skip)('lists a new user as holding the token, and no longer once their first connection is deleted', async () => {
    const met = async () => (await engine.api('GET', '/v1/tools/Probe.Token?user_id=lister')).body.requirements.met;
    expect(await met()).toBe(true);
    await engine.api('POST', '/v1/tools/execute', { tool_name: 'Probe.Token', user_id: 'lister' });
    expect(await met()).toBe(true);
    const connections = await engine.api('GET', '/v1/admin/user_connections?user_id=lister');
    expect((await engine.api('DELETE', `/v1/admin/user_connections/${connections.body.items[0].id}`)).status).toBe(204);
    // Authorized before: the user goes through the consent page like anyone else.
    expect(await met()).toBe(false);
  });
});
