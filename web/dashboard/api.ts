// The dashboard's only way to the hub: the REST API with the token the person gave. Every tool call is
// POST /v1/tools/NAME, so it passes the pipeline (roles, limits, validation) and lands in the audit trail.

const TOKEN_KEY = 'switchboard.token';

/** The token for this tab: kept in sessionStorage, so it goes when the tab closes and never reaches a URL. */
export const token = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (value: string) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** A failed request, with the hub's error code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Called on 401: the token was revoked or expired while the page was open. */
let onUnauthorized: () => void = () => {};
export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

export async function request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  const t = token.get();
  if (t) headers.authorization = `Bearer ${t}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) {
    if (res.status === 401) onUnauthorized();
    const err = data?.error ?? {};
    throw new ApiError(res.status, err.code ?? String(res.status), err.message ?? res.statusText);
  }
  return data as T;
}

/** Call a tool by its capability name (`task.list`) through the pipeline. */
export function call<T = any>(name: string, input: Record<string, unknown> = {}): Promise<T> {
  return request<T>('POST', `/v1/tools/${encodeURIComponent(name)}`, input);
}

export interface Session {
  principal: string;
  kind: string;
  roles: string[];
  admin: boolean;
}

export const whoami = () => request<Session>('GET', '/v1/ui/session');
