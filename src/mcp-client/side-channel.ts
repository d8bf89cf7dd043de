// What an upstream server sends back to the calls in flight on its connection: progress notifications, routed by
// the token each call was given, and elicitation and sampling requests, passed to the newest call whose client can
// answer them.
import type { Client } from '@modelcontextprotocol/client';
import type { ClientChannel } from '../core/context.ts';

export type OnProgress = (p: { progress: number; total?: number; message?: string }) => void;

export class SideChannel {
  private progressSeq = 0;
  private readonly progressRoutes = new Map<string, OnProgress>();
  /** Calls in flight, newest last: a server's elicitation or sampling request goes to the newest that can answer. */
  private readonly inflight: ClientChannel[] = [];

  constructor(private readonly server: string) {}

  /** A call starts: its progress token, when it wants progress; `end` once its result is in. */
  begin(onprogress: OnProgress | undefined, client: ClientChannel | undefined): { token?: string; end(): void } {
    // Progress is routed here rather than through the SDK's per-request callback: the SDK drops a progress
    // notification that arrives in the same read as the result, which is the usual case for the last one.
    const token = onprogress ? `sb-${++this.progressSeq}` : undefined;
    if (token && onprogress) this.progressRoutes.set(token, onprogress);
    const channel = client ?? {};
    this.inflight.push(channel);
    return {
      ...(token ? { token } : {}),
      end: () => {
        // After the result: a progress notification read together with it is handled first, then the route goes.
        if (token) setImmediate(() => this.progressRoutes.delete(token));
        this.inflight.splice(this.inflight.lastIndexOf(channel), 1);
      },
    };
  }

  /** Route `client`'s progress notifications and pass on its elicitation and sampling requests. */
  attach(client: Client): void {
    client.setNotificationHandler('notifications/progress', (n) => {
      const { progressToken, progress, total, message } = n.params;
      this.progressRoutes.get(String(progressToken))?.({
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message !== undefined ? { message } : {}),
      });
    });
    client.setRequestHandler('elicitation/create', async (request) => {
      const caller = this.newest((c) => c.elicit);
      // Nobody who could answer: decline, which the spec offers for exactly this, rather than fail the call.
      if (!caller?.elicit) return { action: 'decline' as const };
      const answer = (await caller.elicit(request.params as Record<string, unknown>)) as Record<string, unknown>;
      return withDefaults(answer, request.params as Record<string, unknown>) as never;
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const caller = this.newest((c) => c.sample);
      if (!caller?.sample)
        throw new Error(
          `Upstream server '${this.server}' asked for sampling, but the client calling it cannot sample (it did not declare the sampling capability).`,
        );
      return (await caller.sample(request.params as Record<string, unknown>)) as never;
    });
  }

  private newest(can: (c: ClientChannel) => unknown): ClientChannel | undefined {
    for (let i = this.inflight.length - 1; i >= 0; i--) if (can(this.inflight[i])) return this.inflight[i];
    return undefined;
  }
}

/**
 * SEP-1034: an accepted form answer gets the schema's default for every field the user left out, so the server
 * sees the values the form showed.
 */
export function withDefaults(
  answer: Record<string, unknown>,
  params: Record<string, unknown>,
): Record<string, unknown> {
  const schema = params.requestedSchema as { properties?: Record<string, { default?: unknown }> } | undefined;
  if (answer?.action !== 'accept' || !schema?.properties) return answer;
  const content = { ...((answer.content as Record<string, unknown>) ?? {}) };
  for (const [field, spec] of Object.entries(schema.properties))
    if (!(field in content) && spec && 'default' in spec) content[field] = spec.default;
  return { ...answer, content };
}
