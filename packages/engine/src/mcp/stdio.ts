/**
 * `quiver mcp`'s transport: the SDK's stdio transport, except that a result holding JSON text already written
 * (a `JsonText`: the tool listing, from the definitions the build wrote, see ServingPolicy.definitionsJson) is sent
 * with that text in place, instead of parsed into objects and written out again. A listing of every tool is 1.4 MB
 * of JSON, and a client asks for it at the start of every session.
 */
import type { Readable, Writable } from 'node:stream';
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

/** A JSON array of JSON texts, each whole or in parts. */
export function jsonArray(items: readonly (Uint8Array | readonly Uint8Array[])[]): JsonText {
  return new JsonText([open, ...items.flatMap((item, i) => [...(i === 0 ? [] : [comma]), ...(item instanceof Uint8Array ? [item] : item)]), close]);
}

export class StdioTransport extends StdioServerTransport {
  private ended = false;

  constructor(
    input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {
    super(input, output);
  }

  override send(message: JSONRPCMessage): Promise<void> {
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
    return super.close();
  }
}

// Stands for the text while the rest is written: no other string of a result is this one (it holds a control character).
const mark = '\u0000json-text';
const markJson = JSON.stringify(mark);
