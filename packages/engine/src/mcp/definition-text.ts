/**
 * A served definition's JSON text (ServingPolicy.definitionsJson) as a 2026-07-28 client that can hold a task is
 * listed it, without parsing it: what `tools/list` does to the definition as an object (mcp-server.ts), done to
 * the text. The input schema declares its dialect first, and a `run_at` property ends its properties. A listing of
 * every tool is 1.4 MB: parsed and written out again, it cost a 2026-07-28 client 15 ms more than a 2025 one. (A
 * client that holds no task is listed the definitions the build wrote for its revision.)
 */

/** Where the input schema's own keys begin, and how every served definition's input schema opens. */
const inputSchemaKey = Buffer.from('"inputSchema":{');
const propertiesOpening = Buffer.from('"type":"object","properties":{');

const [quote, backslash] = ['"'.charCodeAt(0), '\\'.charCodeAt(0)];
const opening = new Set(['{', '['].map((c) => c.charCodeAt(0)));
const closing = new Set(['}', ']'].map((c) => c.charCodeAt(0)));

/**
 * The definition's text in parts (views of it, and `dialect`, `"$schema":"…",`, and `runAt`, `"run_at":{…}`,
 * between them), or undefined where its input schema does not open as every served one does.
 */
export function definitionIn2026(text: Uint8Array, dialect: Uint8Array, runAt?: Uint8Array): Uint8Array[] | undefined {
  const bytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  // The first such key is the definition's own: name, title and description before it are strings, whose quotes are escaped.
  const key = bytes.indexOf(inputSchemaKey);
  if (key < 0) return undefined;
  const schema = key + inputSchemaKey.length;
  if (!bytes.subarray(schema, schema + propertiesOpening.length).equals(propertiesOpening)) return undefined;
  const head = [bytes.subarray(0, schema), dialect];
  if (!runAt) return [...head, bytes.subarray(schema)];
  const end = closingOf(bytes, schema + propertiesOpening.length - 1);
  if (end < 0) return undefined;
  const none = end === schema + propertiesOpening.length;
  return [...head, bytes.subarray(schema, end), ...(none ? [] : [comma]), runAt, bytes.subarray(end)];
}

const comma = Buffer.from(',');

/** The index of the brace that closes the object opening at `start`, strings and nesting skipped; -1 for none. */
function closingOf(bytes: Uint8Array, start: number): number {
  let depth = 0;
  for (let i = start; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === quote) {
      for (i++; i < bytes.length && bytes[i] !== quote; i++) if (bytes[i] === backslash) i++;
    } else if (opening.has(byte)) depth++;
    else if (closing.has(byte) && --depth === 0) return i;
  }
  return -1;
}
