/**
 * The one HTTP client of the test suites, for the engine's API, workers and emulators alike: a bearer
 * token, JSON bodies, array query values as repeated keys, redirects not followed.
 */

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON, the text when it is not JSON, or undefined for an empty body. */
  body: any;
  /** The body as sent, to search for secrets in. */
  text: string;
}

export interface CallOptions {
  query?: Record<string, string | number | boolean | string[]>;
  body?: unknown;
  /** Replaces the default headers (authorization, content-type) where given; `null` leaves one out. */
  headers?: Record<string, string | null>;
  /** Sent as is instead of JSON-encoding `body`. */
  rawBody?: string;
}

export type Call = (method: string, path: string, options?: CallOptions) => Promise<Reply>;

/** The token clients send unless told otherwise; a test issues it (`emulator.issueToken(TEST_TOKEN)`) before use. */
export const TEST_TOKEN = 'test-token';

/** Calls `baseUrl` + path with `token` as the bearer token (`null`: no authorization header). */
export function clientFor(baseUrl: string, token: string | null = TEST_TOKEN): Call {
  return async (method, path, { query = {}, body, headers = {}, rawBody } = {}) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
    }
    const sent: Record<string, string> = {};
    const defaults = {
      ...(token !== null && { authorization: `Bearer ${token}` }),
      ...((body !== undefined || rawBody !== undefined) && { 'content-type': 'application/json' }),
    };
    for (const [name, value] of Object.entries({ ...defaults, ...headers })) if (value !== null) sent[name] = value;
    const response = await fetch(`${baseUrl}${path}${search.size ? `?${search}` : ''}`, {
      method,
      headers: sent,
      // A redirect (archive downloads, sign-in steps) is the answer under test, not something to follow.
      redirect: 'manual',
      body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.text();
    let parsed: unknown = text || undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (text/html, text/plain answers): the text itself.
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
}
