// The dashboard's routes (docs/dashboard.md). The page and its assets answer without a token (they hold no data; the
// page asks for a token and sends it with every API call). Its data comes from the same REST API and tools as any
// client's — every action through the pipeline and the audit trail. What is its own: who the caller is, a ticket for
// the event stream, the stream itself (filtered for the caller), and the per-second call series for the charts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../../core/context.ts';
import { visible } from '../../core/registry.ts';
import type { Hub } from '../../hub.ts';
import { MetricsSeries } from '../../observe/metrics-series.ts';
import { hasRole } from '../../policy/auth.ts';
import type { OAuthResource } from '../../policy/oauth.ts';
import type { Exposure } from '../../policy/principal.ts';
import { sendError, sendJson, streamEvents } from '../rest.ts';
import { eventFor } from './event-view.ts';
import { signInOptions, signInOrigins } from './sign-in.ts';
import { UiFiles } from './static.ts';
import { Tickets } from './tickets.ts';

export interface Dashboard {
  /** Routes that answer before authentication: /ui…, the sign-in options and the ticketed stream. True when the path was one of them. */
  serveOpen(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean>;
  /** Routes for an authenticated principal: /v1/ui/session, /v1/ui/ticket, /v1/ui/series, /v1/ui/task-history. */
  serve(req: IncomingMessage, res: ServerResponse, path: string, principal: Principal): Promise<boolean>;
  close(): void;
}

/**
 * `oauth`: the OAuth resource server, when `[auth.oauth]` is configured (known once the server listens);
 * `exposure`: `serve --only/--except`, which a principal rebuilt from a shared ticket gets as authentication gives it.
 */
export function createDashboard(
  hub: Hub,
  oauth: () => OAuthResource | undefined = () => undefined,
  exposure?: Exposure,
): Dashboard {
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

  return {
    async serveOpen(req, res, path) {
      if (path === '/ui' || path.startsWith('/ui/')) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return false;
        return files.serve(req, res, path);
      }
      if (path === '/v1/ui/sign-in' && req.method === 'GET') {
        const options = await signInOptions(oauth()).catch((err: Error) => err);
        if (options instanceof Error) sendError(res, { code: 'UNAVAILABLE', message: options.message });
        else sendJson(res, 200, options, { 'cache-control': 'no-store' });
        return true;
      }
      if (path !== '/v1/ui/events' || req.method !== 'GET') return false;
      const principal = await tickets.redeem(new URL(req.url ?? '/', 'http://localhost').searchParams.get('ticket'));
      if (!principal) {
        sendJson(res, 401, {
          error: {
            code: 'UNAUTHORIZED',
            message: 'The event stream needs a fresh ticket: POST /v1/ui/ticket with your token, then open ?ticket=….',
          },
        });
        return true;
      }
      await streamEvents(hub, req, res, {
        view: (event) => eventFor(hub, principal, event),
        extra: (send) => {
          if (!seesMetrics(principal)) return () => {};
          // The second that just ended, once a second: the charts move without asking.
          const timer = setInterval(() => send('series', series.points(Date.now(), Date.now() - 1000)), 1000);
          return () => clearInterval(timer);
        },
      });
      return true;
    },

    async serve(req, res, path, principal) {
      if (!path.startsWith('/v1/ui/')) return false;
      if (path === '/v1/ui/session' && req.method === 'GET') {
        sendJson(res, 200, {
          principal: principal.id,
          kind: principal.kind ?? 'token',
          roles: principal.roles,
          admin: hasRole(principal, ['admin']),
        });
      } else if (path === '/v1/ui/ticket' && req.method === 'POST') {
        sendJson(res, 200, await tickets.issue(principal), { 'cache-control': 'no-store' });
      } else if (path === '/v1/ui/series' && req.method === 'GET') {
        if (!seesMetrics(principal))
          sendError(res, { code: 'FORBIDDEN', message: 'The call series needs access to system.metrics.' });
        else sendJson(res, 200, { points: series.points() });
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
