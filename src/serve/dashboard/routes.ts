// The dashboard's routes (docs/dashboard.md). The page and its assets answer without a token (the page holds data
// only for a caller that needs none: initial-state.ts; otherwise it asks for a token and sends it with every API
// call). Its data comes from the same REST API and tools as any client's — every action through the pipeline and the
// audit trail. What is its own: who the caller is, a ticket for the event stream, the stream itself (filtered for the
// caller), and the per-second call series for the charts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../core/context.ts';
import { visible } from '../../core/registry.ts';
import type { Hub } from '../../hub.ts';
import { eventFor } from '../../observe/event-view.ts';
import { MetricsSeries } from '../../observe/metrics-series.ts';
import { type HttpAuth, TOKEN_GONE } from '../../policy/auth.ts';
import type { Exposure } from '../../policy/principal.ts';
import { sendError, sendJson, streamEvents } from '../rest.ts';
import { pageState, stateElement, uiSession } from './initial-state.ts';
import { signInOptions, signInOrigins } from './sign-in.ts';
import { UiFiles } from './static.ts';
import { Tickets } from './tickets.ts';

export interface Dashboard {
  /** Routes that answer before authentication: /ui…, the sign-in options and the ticketed stream. True when the path was one of them. */
  serveOpen(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean>;
  /**
   * Routes for an authenticated principal: /v1/ui/session, /v1/ui/ticket, /v1/ui/series, /v1/ui/task-history.
   * `token`: the Switchboard token it authenticated with, by hash (`AuthResult.token`), which a ticket is bound to.
   */
  serve(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    principal: Principal,
    token?: string,
  ): Promise<boolean>;
  close(): void;
}

/**
 * `auth`: the server's authentication — its OAuth resource server, when `[auth.oauth]` is configured (known once the
 * server listens), and whether a ticket's token is still accepted, watched for as long as its stream is open; and who
 * a page request without a token is;
 * `exposure`: `serve --only/--except`, which a principal rebuilt from a shared ticket gets as authentication gives it.
 */
export function createDashboard(
  hub: Hub,
  auth: Pick<HttpAuth, 'oauth' | 'accepts' | 'watch' | 'authenticate'>,
  exposure?: Exposure,
): Dashboard {
  const oauth = () => auth.oauth;
  const files = new UiFiles(() => signInOrigins(oauth()));
  const shared = hub.services.store.shared?.tickets;
  const tickets = new Tickets({
    config: () => hub.config.get(),
    ...(shared ? { shared } : {}),
    ...(exposure ? { exposure } : {}),
  });
  const series = new MetricsSeries(hub.services.bus);
  /** The call series counts every caller's calls (no names): shown to whoever may read system.metrics. */
  const sees = (principal: Principal, capability: string) => {
    const entry = hub.services.registry.get(capability);
    return entry !== undefined && visible(principal, entry.capability);
  };
  const seesMetrics = (principal: Principal) => sees(principal, 'system.metrics');
  /** Who a page request without a token is, if anyone: the page holds that caller's first answers. */
  const tokenless = async (req: IncomingMessage) => {
    const authn = await auth.authenticate(req);
    return authn.ok ? authn.principal : null;
  };
  const seriesFor = (principal: Principal) => (seesMetrics(principal) ? { points: series.points() } : undefined);

  return {
    async serveOpen(req, res, path) {
      if (path === '/ui' || path.startsWith('/ui/')) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return false;
        if (UiFiles.isAsset(path) || !files.available) return files.serve(req, res, path);
        const state = await pageState(hub, req, tokenless, seriesFor);
        return files.serve(req, res, path, state && stateElement(state));
      }
      if (path === '/v1/ui/sign-in' && req.method === 'GET') {
        const options = await signInOptions(oauth()).catch((err: Error) => err);
        if (options instanceof Error) sendError(res, { code: 'UNAVAILABLE', message: options.message });
        else sendJson(res, 200, options, { 'cache-control': 'no-store' });
        return true;
      }
      if (path !== '/v1/ui/events' || req.method !== 'GET') return false;
      const held = await tickets.redeem(new URL(req.url ?? '/', 'http://localhost').searchParams.get('ticket'));
      // A ticket issued before its token was revoked opens nothing.
      const token = held?.token;
      if (!held || (token && !(await auth.accepts(token)))) {
        sendJson(res, 401, {
          error: {
            code: 'UNAUTHORIZED',
            message: held
              ? 'The token this ticket was issued to has been revoked or has expired; sign in again with a valid token.'
              : 'The event stream needs a fresh ticket: POST /v1/ui/ticket with your token, then open ?ticket=….',
          },
        });
        return true;
      }
      const { principal } = held;
      await streamEvents(hub, req, res, {
        ...(token ? { endOn: (end) => auth.watch(token, () => end(TOKEN_GONE)) } : {}),
        view: (event) => eventFor(hub.services.registry, principal, event),
        extra: (send) => {
          if (!seesMetrics(principal)) return () => {};
          // The second that just ended, once a second: the charts move without asking.
          const timer = setInterval(() => send('series', series.points(Date.now(), Date.now() - 1000)), 1000);
          return () => clearInterval(timer);
        },
      });
      return true;
    },

    async serve(req, res, path, principal, token) {
      if (!path.startsWith('/v1/ui/')) return false;
      if (path === '/v1/ui/session' && req.method === 'GET') {
        sendJson(res, 200, uiSession(principal));
      } else if (path === '/v1/ui/ticket' && req.method === 'POST') {
        sendJson(res, 200, await tickets.issue(token ? { principal, token } : { principal }), {
          'cache-control': 'no-store',
        });
      } else if (path === '/v1/ui/series' && req.method === 'GET') {
        if (!seesMetrics(principal))
          sendError(res, { code: 'FORBIDDEN', message: 'The call series needs access to system.metrics.' });
        else sendJson(res, 200, seriesFor(principal));
      } else if (path === '/v1/ui/task-history' && req.method === 'GET') {
        // A task's changes as the event log kept them (the latest `[events] retain` hub events).
        const id = new URL(req.url ?? '/', 'http://localhost').searchParams.get('id');
        if (!sees(principal, 'task.get'))
          sendError(res, { code: 'FORBIDDEN', message: 'Task history needs task.get.' });
        else if (!id) sendError(res, { code: 'INVALID_INPUT', message: 'Name the task: /v1/ui/task-history?id=t-….' });
        else {
          const stored = await hub.services.store.events.recent(hub.config.get().events.retain);
          const events = stored.map((s) => s.event).filter((e) => e.type === 'task.changed' && e.id === id);
          sendJson(res, 200, { events });
        }
      } else
        sendError(res, {
          code: 'NOT_FOUND',
          message: `No route ${req.method} ${path}. The dashboard's own routes: GET /v1/ui/sign-in, GET /v1/ui/session, POST /v1/ui/ticket, GET /v1/ui/series, GET /v1/ui/task-history?id=…, GET /v1/ui/events?ticket=….`,
        });
      return true;
    },

    close() {
      series.close();
    },
  };
}
