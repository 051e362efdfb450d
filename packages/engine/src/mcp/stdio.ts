/**
 * `quiver mcp`'s transport: the SDK's stdio transport, except that
 * - a result holding JSON text already written (a `JsonText`: the tool listing, from the definitions the build
 *   wrote, see ServingPolicy.listingJson) is sent with that text in place, instead of parsed into objects and
 *   written out again. A listing of every tool is 1.4 MB of JSON, and a client asks for it at the start of every
 *   session;
 * - the end of its input ends the session only once every request read has been answered. A client may send its
 *   requests and close its end at once: the SDK's transport closed then, and the server with it, and the answers
 *   of the calls still running were never written.
 */
import { Readable, type Writable } from 'node:stream';
import { DEFAULT_DEADLINE_MS } from '@quiver/core';
import { StdioServerTransport, type JSONRPCMessage } from '#mcp-server';

/**
 * JSON text to be sent as it is, as a field of a result, in parts written one after another (views of the files
 * they were read from, not copies). Only a transport that knows it may be given one (see McpServerOptions.sendsJsonText).
 */
export class JsonText {
  constructor(readonly parts: readonly Uint8Array[]) {}
}

const comma = Buffer.from(',');
const [open, close] = [Buffer.from('['), Buffer.from(']')];

/** A JSON array of its items' JSON texts: each given whole or in parts, or several whole apart by commas (ServingPolicy.listingJson). */
export function jsonArray(items: readonly (Uint8Array | readonly Uint8Array[])[]): JsonText {
  return new JsonText([open, ...items.flatMap((item, i) => [...(i === 0 ? [] : [comma]), ...(item instanceof Uint8Array ? [item] : item)]), close]);
}

/** Requests that open a stream rather than wait for one answer: the end of the session ends them. */
const streams = new Set(['subscriptions/listen']);

export class StdioTransport extends StdioServerTransport {
  private ended = false;
  private readonly output: Writable;
  /** What the SDK's transport reads: the input's data as it comes, its end once every request read is answered. */
  private readonly held: Readable;
  /** Requests read and not yet answered, by id: a client may reuse an id before its answer (a mistake), and is answered twice. */
  private readonly unanswered = new Map<string | number, number>();
  private inputEnded = false;
  private endTimer: NodeJS.Timeout | undefined;
  private readonly detach: () => void;

  /** `answerWaitMs`: how long the end of the input waits for answers, at most (a call's upstream deadline, by default). */
  constructor(
    input: Readable = process.stdin,
    output: Writable = process.stdout,
    private readonly answerWaitMs = DEFAULT_DEADLINE_MS,
  ) {
    const held = new Readable({ read() {} });
    super(held, output);
    this.held = held;
    this.output = output;
    // Pushed as it comes: the SDK's transport reads each message before the next chunk, and before the end.
    const data = (chunk: Buffer) => held.push(chunk);
    const end = () => this.inputEnd();
    const error = (cause: Error) => held.destroy(cause);
    input.on('data', data).once('end', end).once('close', end).on('error', error);
    this.detach = () => {
      input.off('data', data).off('end', end).off('close', end).off('error', error);
      if (input.listenerCount('data') === 0) input.pause();
    };
  }

  override start(): Promise<void> {
    // Set by the server before it starts the transport: every request it is given is counted until answered.
    const deliver = this.onmessage;
    this.onmessage = (message) => {
      const { id, method } = message as { id?: string | number; method?: unknown };
      if (id !== undefined && typeof method === 'string' && !streams.has(method)) {
        this.unanswered.set(id, (this.unanswered.get(id) ?? 0) + 1);
      }
      deliver?.(message);
    };
    // A line of JSON that is no JSON-RPC message is answered as JSON-RPC 2.0 says, Invalid Request with a null id
    // (none could be read): the SDK's transport only reports it to the server, and the client waited in vain. (A
    // line that is not JSON at all the SDK's transport skips, as stray output, before anything sees it.)
    const report = this.onerror;
    this.onerror = (error) => {
      if (error.name === 'ZodError') {
        const refusal = { code: -32600, message: 'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message' };
        this.write({ jsonrpc: '2.0', id: null, error: refusal } as unknown as JSONRPCMessage).catch(() => undefined);
      }
      report?.(error);
    };
    return super.start();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const sent = this.write(message);
    const { id } = message as { id?: string | number };
    if (id === undefined || !('result' in message || 'error' in message)) return sent;
    return sent.finally(() => {
      const left = (this.unanswered.get(id) ?? 1) - 1;
      if (left) this.unanswered.set(id, left);
      else this.unanswered.delete(id);
      if (this.inputEnded && this.unanswered.size === 0) this.endHeld();
    });
  }

  private inputEnd(): void {
    if (this.inputEnded) return;
    this.inputEnded = true;
    if (this.unanswered.size === 0) this.endHeld();
    else this.endTimer = setTimeout(() => this.endHeld(), this.answerWaitMs);
  }

  private endHeld(): void {
    clearTimeout(this.endTimer);
    if (!this.held.readableEnded) this.held.push(null);
  }

  private write(message: JSONRPCMessage): Promise<void> {
    const result = 'result' in message ? (message.result as Record<string, unknown>) : undefined;
    const field = result && Object.keys(result).find((key) => result[key] instanceof JsonText);
    if (!result || field === undefined) return super.send(message);
    if (this.ended) return Promise.reject(new Error('The stdio transport is closed'));
    // The rest of the message as JSON, cut where the text goes.
    const json = JSON.stringify({ ...message, result: { ...result, [field]: mark } });
    const at = json.indexOf(markJson);
    const parts = [json.slice(0, at), ...(result[field] as JsonText).parts, `${json.slice(at + markJson.length)}\n`];
    // One write to the system for all the parts, none of them copied.
    const last = parts.pop()!;
    return new Promise((resolve, reject) => {
      this.output.cork();
      for (const part of parts) this.output.write(part);
      this.output.write(last, (error) => (error ? reject(error) : resolve()));
      this.output.uncork();
    });
  }

  override close(): Promise<void> {
    this.ended = true;
    clearTimeout(this.endTimer);
    this.detach();
    return super.close();
  }
}

// Stands for the text while the rest is written: no other string of a result is this one (it holds a control character).
const mark = '\u0000json-text';
const markJson = JSON.stringify(mark);
