/**
 * What stateless streamable HTTP needs for the server to ask the client something (elicitation). Each
 * message gets a server of its own, which never saw the client's `initialize`, and a client's answer to a
 * question comes back in a POST of its own. So:
 * - a client that declares elicitation at `initialize` is given a session id that carries the modes it
 *   declared (and nothing else: the id is no credential, and a client could declare anything anyway); each
 *   later message's server reads them back from it. Other clients get no session id, as before;
 * - each question goes out under an id unique in the process, and its answer, whichever POST brings it,
 *   is handed to the server that asked, if the same caller sends it. An answer that reaches another engine
 *   process finds nothing there: route a session's messages to one process (by `Mcp-Session-Id`), or the
 *   call goes on as if the person had not answered once the question times out.
 */
import { randomUUID } from 'node:crypto';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type ClientCapabilities,
  type JSONRPCMessage,
  type RequestId,
  type Transport,
} from '#mcp-server';
import { elicitationModes } from './elicitation.js';

/** A session id for a client that declared elicitation at `initialize`; undefined for any other message or client. */
export function sessionIdFor(body: unknown): string | undefined {
  const message = body as { method?: unknown; params?: { capabilities?: { elicitation?: unknown } } } | null;
  if (message?.method !== 'initialize') return undefined;
  const declared = message.params?.capabilities?.elicitation;
  if (declared === null || typeof declared !== 'object') return undefined;
  const { form, url } = elicitationModes({ elicitation: declared } as ClientCapabilities);
  return form || url ? `${randomUUID()}.${form ? 'f' : ''}${url ? 'u' : ''}` : undefined;
}

/** The capabilities a session id carries, if it is one of ours. */
export function capabilitiesOf(sessionId: string | undefined): ClientCapabilities | undefined {
  const modes = sessionId && /^[0-9a-f-]{36}\.(f?u?)$/.exec(sessionId)?.[1];
  if (!modes) return undefined;
  return { elicitation: { ...(modes.includes('f') && { form: {} }), ...(modes.includes('u') && { url: {} }) } };
}

type Answer = JSONRPCMessage & { id: RequestId };

/** The questions this process's servers asked and await an answer to, by the id they went out under. */
export class PendingQuestions {
  private readonly waiting = new Map<string, { owner: string; deliver: (answer: Answer) => void }>();

  /** Sends the transport's questions out under ids of their own; answers are taken only from `owner`. Call the returned function once it closes. */
  track(transport: Transport, owner: string): () => void {
    const send = transport.send.bind(transport);
    /** Each question's own id, by the id it went out under, and back. */
    const outgoing = new Map<string, RequestId>();
    const sent = new Map<RequestId, string>();
    transport.send = (message, options) => {
      if (isJSONRPCRequest(message)) {
        const id = randomUUID();
        outgoing.set(id, message.id);
        sent.set(message.id, id);
        this.waiting.set(id, { owner, deliver: (answer) => transport.onmessage?.({ ...answer, id: message.id }) });
        return send({ ...message, id }, options);
      }
      // A question the server gave up on is cancelled under the id the client knows.
      const cancelled = message as { method?: string; params?: { requestId?: RequestId } };
      if (cancelled.method === 'notifications/cancelled' && cancelled.params?.requestId !== undefined) {
        const id = sent.get(cancelled.params.requestId);
        if (id) return send({ ...message, params: { ...cancelled.params, requestId: id } } as JSONRPCMessage, options);
      }
      return send(message, options);
    };
    return () => {
      for (const id of outgoing.keys()) this.waiting.delete(id);
    };
  }

  /** Hands the answers a message holds to the servers that asked; false when it holds anything but answers. */
  deliver(body: unknown, owner: string): boolean {
    const messages = [body].flat() as JSONRPCMessage[];
    if (!messages.length || !messages.every((message) => isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message))) return false;
    for (const answer of messages as Answer[]) {
      const question = this.waiting.get(String(answer.id));
      if (!question || question.owner !== owner) continue;
      this.waiting.delete(String(answer.id));
      question.deliver(answer);
    }
    return true;
  }
}
