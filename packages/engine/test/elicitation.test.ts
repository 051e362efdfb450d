/**
 * Elicitation over the engine's /v1/mcp, with the SDK's own clients in both eras: a 2025 client is asked
 * through `elicitation/create` requests on the call's stream, a 2026-07-28 client through `input_required`
 * results it answers by calling again. A destructive call is confirmed (or declined) by the person through
 * a form, and a call that needs an authorization the person grants through the URL the client is asked to
 * open runs and answers once it completes. Clients that declare neither keep the model's ways: the
 * `confirm` argument, the authorization URL in the text.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  type ClientCapabilities as ModernCapabilities,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { defineToolkit } from '@quiver/core';
import { startTestEngine, type TestEngine } from '@quiver/test-support/harness';
import { recordingUpstream, upstreamToolkit } from '@quiver/test-support/oidc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Elicit = (params: ElicitRequest['params']) => Promise<ElicitResult>;
type Era = '2025-11-25' | '2026-07-28';
type CallResult = { isError?: boolean; content: unknown; _meta?: Record<string, unknown> };

/** A client of either era, as far as these tests use one. */
interface Connected {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<CallResult>;
  listTools(): Promise<Array<{ name: string; inputSchema: { properties?: unknown; required?: string[] } }>>;
  /** The ids of the elicitations the server said were completed (2025 only: the 2026-07-28 revision has none). */
  completed: string[];
  close(): Promise<void>;
}

async function connect(era: Era, engine: TestEngine, user: string, capabilities: ClientCapabilities, elicit?: Elicit): Promise<Connected> {
  const url = new URL(`${engine.url}/v1/mcp?discovery=false`);
  const requestInit = { headers: { authorization: `Bearer ${engine.key}`, 'quiver-user-id': user } };
  const completed: string[] = [];
  // The SDKs refuse a handler for what the client did not declare.
  if (era === '2026-07-28') {
    const client = new ModernClient(
      { name: 'elicitation-test', version: '1' },
      { capabilities: capabilities as ModernCapabilities, versionNegotiation: { mode: { pin: era } } },
    );
    if (elicit && capabilities.elicitation) client.setRequestHandler('elicitation/create', (request) => elicit(request.params as ElicitRequest['params']));
    await client.connect(new ModernTransport(url, { requestInit }));
    return {
      callTool: (params) => client.callTool(params) as Promise<CallResult>,
      listTools: async () => (await client.listTools()).tools,
      completed,
      close: () => client.close(),
    };
  }
  const client = new Client({ name: 'elicitation-test', version: '1' }, { capabilities });
  if (elicit && capabilities.elicitation) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params));
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => void completed.push(notification.params.elicitationId));
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return {
    callTool: (params) => client.callTool(params) as Promise<CallResult>,
    listTools: async () => (await client.listTools()).tools,
    completed,
    close: () => client.close(),
  };
}

const text = (result: CallResult) => (result.content as Array<{ text: string }>).map((item) => item.text).join('\n');

describe.each(['2025-11-25', '2026-07-28'] as Era[])('in the %s era', (era) => {
  describe('form elicitation confirms destructive calls', () => {
    let engine: TestEngine;
    /** The `n` of every run of the destructive tool. */
    const runs: number[] = [];
    const purge = defineToolkit(
      {
        name: 'Purge',
        version: '1',
        description: 'Deletes things.',
        baseUrl: 'http://127.0.0.1:9',
        tools: [
          {
            name: 'Delete',
            description: 'Deletes item n.',
            parameters: [
              { name: 'n', description: 'Which.', required: true, schema: { type: 'integer' } },
              { name: 'label', description: 'A label.', required: false, schema: { type: 'string' } },
            ],
            output: { description: 'The item deleted.' },
            requirements: {},
            annotations: { destructiveHint: true, readOnlyHint: false },
          },
        ],
      },
      {
        Delete: async (input) => {
          runs.push(input.n as number);
          return { value: { deleted: input.n } };
        },
      },
    );

    beforeAll(async () => {
      engine = await startTestEngine('sqlite', { toolkits: [purge], serving: { confirmDestructive: true } });
    });
    afterAll(() => engine?.close());

    it('asks the person with the tool and its arguments, secrets left out, and runs the call once when accepted', async () => {
      const asked: ElicitRequest['params'][] = [];
      const client = await connect(era, engine, 'ada', { elicitation: {} }, async (params) => {
        asked.push(params);
        return { action: 'accept', content: { confirm: true } };
      });
      const result = await client.callTool({ name: 'Purge_Delete', arguments: { n: 1, label: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' } });
      await client.close();
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual({ deleted: 1 });
      expect(runs).toEqual([1]);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ mode: 'form', requestedSchema: { properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } });
      expect(Object.keys((asked[0] as { requestedSchema: { properties: object } }).requestedSchema.properties)).toEqual(['confirm']);
      expect(asked[0]!.message).toContain('Purge.Delete');
      expect(asked[0]!.message).toContain('"n": 1');
      expect(asked[0]!.message).toContain('[omitted]');
      expect(asked[0]!.message).not.toContain('ghp_');
    });

    it('runs nothing when the person declines, cancels or leaves the box unchecked, and says they declined', async () => {
      runs.length = 0;
      for (const answer of [{ action: 'decline' }, { action: 'cancel' }, { action: 'accept', content: { confirm: false } }] as ElicitResult[]) {
        const client = await connect(era, engine, 'ada', { elicitation: { form: {} } }, async () => answer);
        const result = await client.callTool({ name: 'Purge_Delete', arguments: { n: 2 } });
        await client.close();
        expect(result.isError).toBe(true);
        expect(result._meta).toMatchObject({ kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE' });
        expect(text(result)).toContain('the user declined it');
      }
      expect(runs).toEqual([]);
    });

    it("keeps the confirm argument for a client without form elicitation, and doesn't ask the person when the model confirmed", async () => {
      runs.length = 0;
      const plain = await connect(era, engine, 'ada', {});
      const refused = await plain.callTool({ name: 'Purge_Delete', arguments: { n: 3 } });
      expect(text(refused)).toContain('was not confirmed; nothing was done');
      expect(text(refused)).toContain('Ask the user to confirm');
      expect(runs).toEqual([]);
      const confirmed = await plain.callTool({ name: 'Purge_Delete', arguments: { n: 3, confirm: true } });
      expect(confirmed.isError).toBeFalsy();
      await plain.close();

      const urlOnly = await connect(era, engine, 'ada', { elicitation: { url: {} } }, async () => {
        throw new Error('a client with URL elicitation only is never sent a form');
      });
      expect(text(await urlOnly.callTool({ name: 'Purge_Delete', arguments: { n: 4 } }))).toContain('Ask the user to confirm');
      await urlOnly.close();
      expect(runs).toEqual([3]);
    });

    it('lists no confirm to a client that can ask its person, and asks the person even when the model set it', async () => {
      runs.length = 0;
      const asked: ElicitRequest['params'][] = [];
      const client = await connect(era, engine, 'ada', { elicitation: { form: {} } }, async (params) => {
        asked.push(params);
        return { action: 'decline' };
      });
      const listed = (await client.listTools()).find((tool) => tool.name === 'Purge_Delete')!;
      expect(Object.keys(listed.inputSchema.properties as object)).not.toContain('confirm');
      expect(listed.inputSchema.required).toEqual(['n']);
      const result = await client.callTool({ name: 'Purge_Delete', arguments: { n: 7, confirm: true } });
      await client.close();
      expect(asked).toHaveLength(1);
      expect(text(result)).toContain('the user declined it');
      expect(runs).toEqual([]);

      const plain = await connect(era, engine, 'ada', {});
      const offered = (await plain.listTools()).find((tool) => tool.name === 'Purge_Delete')!;
      await plain.close();
      expect(offered.inputSchema.required).toEqual(['n', 'confirm']);
    });

    it('keeps calls apart: two clients asked at once each get their own answer', async () => {
      runs.length = 0;
      const yes = await connect(era, engine, 'ada', { elicitation: {} }, async () => ({ action: 'accept', content: { confirm: true } }));
      const no = await connect(era, engine, 'ada', { elicitation: {} }, async () => ({ action: 'decline' }));
      const [accepted, declined] = await Promise.all([
        yes.callTool({ name: 'Purge_Delete', arguments: { n: 5 } }),
        no.callTool({ name: 'Purge_Delete', arguments: { n: 6 } }),
      ]);
      await Promise.all([yes.close(), no.close()]);
      expect(accepted.isError).toBeFalsy();
      expect(declined.isError).toBe(true);
      expect(runs).toEqual([5]);
    });
  });

  describe('URL elicitation sends the person to an authorization', () => {
    const sandboxToken = 'sandbox-granted-token-elicitation';
    let engine: TestEngine;
    let upstream: Awaited<ReturnType<typeof recordingUpstream>>;

    beforeAll(async () => {
      upstream = await recordingUpstream();
      engine = await startTestEngine('sqlite', { toolkits: [upstreamToolkit(upstream.url)], credentials: undefined, sandbox: { token: sandboxToken } });
    });
    afterAll(async () => {
      await engine?.close();
      await upstream?.close();
    });

    /** A user whose connection was removed, so that the tool needs an authorization again. */
    async function disconnected(user: string) {
      await engine.api('POST', '/v1/tools/execute', { tool_name: 'Upstream.WhoAmI', user_id: user });
      const connections = await engine.api('GET', `/v1/admin/user_connections?user_id=${user}`);
      expect((await engine.api('DELETE', `/v1/admin/user_connections/${connections.body.items[0].id}`)).status).toBe(204);
    }

    /** The person's browser on the sandbox's consent page: Allow, then back to the engine's callback. */
    async function allow(url: string) {
      const html = await (await fetch(url)).text();
      const form = new URLSearchParams([...html.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map(([, name, value]) => [name!, value!.replace(/&amp;/g, '&')]));
      form.set('decision', 'allow');
      const decided = await fetch(`${engine.url}/v1/sandbox/oauth/authorize`, { method: 'POST', body: form, redirect: 'manual' });
      expect((await fetch(decided.headers.get('location')!)).status).toBe(200);
    }

    it('asks the client to open the authorization URL, waits for it to complete, and answers the call', async () => {
      await disconnected('tess');
      const calls = upstream.seen.length;
      const asked: ElicitRequest['params'][] = [];
      let granting: Promise<void> | undefined;
      const client = await connect(era, engine, 'tess', { elicitation: { url: {} } }, async (params) => {
        asked.push(params);
        // The person opens the page and allows, after the client has said it will send them there.
        granting = new Promise((resolve) => setTimeout(resolve, 200)).then(() => allow((params as { url: string }).url));
        return { action: 'accept' };
      });
      const result = await client.callTool({ name: 'Upstream_WhoAmI', arguments: {} });
      await granting;
      await client.close();

      expect(result.isError).toBeFalsy();
      expect(JSON.parse(text(result))).toEqual({ account: 'sandbox' });
      expect(upstream.seen.slice(calls)).toEqual([`Bearer ${sandboxToken}`]);
      expect(asked).toHaveLength(1);
      const question = asked[0] as { mode: string; url: string; message: string; elicitationId?: string };
      expect(question.mode).toBe('url');
      expect(question.url).toMatch(new RegExp(`^${engine.url}/v1/sandbox/oauth/authorize\\?`));
      expect(question.message).toContain('Upstream.WhoAmI');
      expect(question.message).toContain('testidp');
      if (era === '2025-11-25') {
        // The 2025 revisions name the elicitation: the authorization's id, announced once it completed.
        expect((await engine.api('GET', `/v1/auth/status?id=${question.elicitationId}`)).body).toMatchObject({ status: 'completed', user_id: 'tess' });
        expect(client.completed).toEqual([question.elicitationId]);
      } else {
        expect(question.elicitationId).toBeUndefined();
      }
    });

    it('answers with the authorization URL, as before, when the person declines or the client has no URL elicitation', async () => {
      await disconnected('uma');
      const declining = await connect(era, engine, 'uma', { elicitation: { url: {} } }, async () => ({ action: 'decline' }));
      const declined = await declining.callTool({ name: 'Upstream_WhoAmI', arguments: {} });
      await declining.close();
      expect(declined.isError).toBe(true);
      expect(declined._meta).toMatchObject({ kind: 'TOOL_REQUIREMENTS_NOT_MET' });
      expect(text(declined)).toMatch(new RegExp(`needs the user's authorization with testidp: ${engine.url}/v1/sandbox/oauth/authorize\\?`));
      expect(text(declined)).toContain('The user declined the authorization request.');

      for (const capabilities of [{}, { elicitation: {} }] as ClientCapabilities[]) {
        const client = await connect(era, engine, 'uma', capabilities, async () => {
          throw new Error('never asked');
        });
        const result = await client.callTool({ name: 'Upstream_WhoAmI', arguments: {} });
        await client.close();
        expect(text(result)).toMatch(
          new RegExp(`^Upstream.WhoAmI needs the user's authorization with testidp: ${engine.url}/v1/sandbox/oauth/authorize\\?[^\\s]+$`),
        );
      }
    });
  });
});
