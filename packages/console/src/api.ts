/** The engine's /v1 API with the signed-in key. The key lives in this tab's session storage only. */

const storageKey = 'quiver.apiKey';

export interface Me {
  role: 'admin' | 'service' | 'user';
  user_id?: string;
  key: { id: string; name: string; prefix: string };
}

export interface Page<T> {
  items: T[];
  limit: number;
  offset: number;
  page_count: number;
  total_count: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const storedKey = (): string | null => sessionStorage.getItem(storageKey);
export const storeKey = (key: string): void => sessionStorage.setItem(storageKey, key);
export const forgetKey = (): void => sessionStorage.removeItem(storageKey);

/** Called when the engine no longer accepts the key (revoked while signed in). */
let onUnauthorized: () => void = () => {};
export const whenUnauthorized = (handler: () => void): void => {
  onUnauthorized = handler;
};

/** A call of the engine's API with the stored key; `signal` abandons it (a search superseded by the next keystroke). */
export async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${storedKey() ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  const text = await response.text();
  const data = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const error = (data ?? {}) as { name?: string; message?: string };
    if (response.status === 401) onUnauthorized();
    throw new ApiError(response.status, error.name ?? 'error', error.message ?? `${method} ${path} answered ${response.status}`);
  }
  return data as T;
}

/** A query string from the defined values. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
