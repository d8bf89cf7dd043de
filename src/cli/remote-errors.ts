// What a person reads when a running Switchboard cannot be used (`tools … --url`, `stats`, `events tail`): the
// server is not there, wants a token, or refused the one given — each with what to do next. No SDK import here:
// `events tail` uses plain fetch.
import { CliError } from './output.ts';

/** The token a remote command sends: `--token`, else $SWITCHBOARD_TOKEN. */
export function remoteToken(given: string | undefined): string | undefined {
  return given ?? (process.env.SWITCHBOARD_TOKEN || undefined);
}

/** How a network error names its reason (ECONNREFUSED, ENOTFOUND, …), found along its chain of causes. */
function networkReason(err: unknown): string | undefined {
  let at: unknown = err;
  for (let depth = 0; at && depth < 6; depth++) {
    const e = at as { code?: unknown; message?: unknown; cause?: unknown; data?: { cause?: unknown } };
    if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) return e.code;
    if (e.message === 'fetch failed') return networkReason(e.cause) ?? 'fetch failed';
    at = e.cause ?? e.data?.cause;
  }
  return undefined;
}

/** The HTTP status and the server's own message of a refused request, when the error carries them. */
function httpRefusal(err: unknown): { status: number; message?: string } | undefined {
  const data = (err as { data?: { status?: unknown; text?: unknown } })?.data;
  if (typeof data?.status !== 'number') return undefined;
  let message: string | undefined;
  try {
    message = JSON.parse(String(data.text)).error?.message;
  } catch {
    // Not a JSON error body: the status says enough.
  }
  return { status: data.status, message };
}

/**
 * A failed request to a running Switchboard as a person should read it: whether the server is not there, wants a
 * token, or refused the one given — with what to do next. Other errors are returned as they are.
 */
export function remoteFailure(url: URL, err: unknown, sentToken: boolean): Error {
  const refusal = httpRefusal(err);
  if (refusal) return refusedBy(url, refusal.status, refusal.message, sentToken) ?? (err as Error);
  const reason = networkReason(err);
  if (reason) return unreachable(url, reason);
  return err instanceof Error ? err : new Error(String(err));
}

export function unreachable(url: URL, reason: string): CliError {
  return new CliError(`cannot reach ${url.origin} (${reason}) — is \`switchboard serve --http\` running there?`);
}

/** The message for a 401 or 403 answer; undefined for other statuses. */
export function refusedBy(url: URL, status: number, message: string | undefined, sentToken: boolean) {
  const said = message ? ` (${message.replace(/\.$/, '')})` : '';
  const create = 'create one in the served project with: switchboard token create NAME --roles agent';
  if (status === 401)
    return new CliError(
      sentToken
        ? `${url.origin} rejected the token${said}. Pass a valid one with --token TOKEN or the SWITCHBOARD_TOKEN environment variable (${create}).`
        : `${url.origin} requires a token: pass one with --token TOKEN or the SWITCHBOARD_TOKEN environment variable (${create}).`,
    );
  if (status === 403) return new CliError(`${url.origin} refused the request${said}: HTTP 403.`);
  return undefined;
}
