// The dashboard's only way to the hub: the REST API with the token the person gave. Every tool call is
// POST /v1/tools/NAME, so it passes the pipeline (roles, limits, validation) and lands in the audit trail. The last
// answer to each request is kept, so a view shows what was last known at once while it asks again; the first ones
// can come with the page (src/serve/dashboard/initial-state.ts).
import type { PageState, UiSession } from '../../src/serve/dashboard/initial-state.ts';

const TOKEN_KEY = 'switchboard.token';

/** The last answers, by request; another principal's must never show, so they go with the token. */
const answers = new Map<string, unknown>();
/** Requests remembered at most (the oldest is forgotten first): views ask a few dozen distinct ones. */
const MAX_ANSWERS = 200;

const requestKey = (method: string, path: string, body: unknown) =>
  `${method} ${path} ${body === undefined ? '' : JSON.stringify(body)}`;

function remember(key: string, answer: unknown): void {
  answers.delete(key);
  answers.set(key, answer);
  if (answers.size > MAX_ANSWERS) answers.delete(answers.keys().next().value as string);
}

/** The token for this tab: kept in sessionStorage, so it goes when the tab closes and never reaches a URL. */
export const token = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (value: string) => {
    answers.clear();
    sessionStorage.setItem(TOKEN_KEY, value);
  },
  clear: () => {
    answers.clear();
    sessionStorage.removeItem(TOKEN_KEY);
  },
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
  // Sent with the token it was asked with: a token changed meanwhile must not see it.
  if (token.get() === t) remember(requestKey(method, path, body), data);
  return data as T;
}

/** The last answer to a request, if one is known. */
export function lastAnswer<T = any>(method: string, path: string, body?: unknown): T | undefined {
  return answers.get(requestKey(method, path, body)) as T | undefined;
}

const toolPath = (name: string) => `/v1/tools/${encodeURIComponent(name)}`;

/** Call a tool by its capability name (`task.list`) through the pipeline. */
export function call<T = any>(name: string, input: Record<string, unknown> = {}): Promise<T> {
  return request<T>('POST', toolPath(name), input);
}

/** The last answer of `call(name, input)`, if one is known. */
export function lastCall<T = any>(name: string, input: Record<string, unknown> = {}): T | undefined {
  return lastAnswer<T>('POST', toolPath(name), input);
}

export type Session = UiSession;

/**
 * What the page came with, once (src/serve/dashboard/initial-state.ts): its answers are remembered, and the session
 * is returned — null when the caller must log in. Undefined when the page holds none, or when this tab has a token of
 * its own (the page's state is what a caller without one may see).
 */
export function takePageState(): Session | null | undefined {
  const element = document.getElementById('page-state');
  element?.remove();
  if (!element || token.get() !== null) return undefined;
  const state = JSON.parse(element.textContent ?? 'null') as PageState | null;
  if (!state) return undefined;
  for (const a of state.answers) remember(requestKey(a.method, a.path, a.body), a.answer);
  return state.session;
}

export const whoami = () => request<Session>('GET', '/v1/ui/session');
