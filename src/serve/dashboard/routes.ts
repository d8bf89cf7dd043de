// The dashboard's routes (docs/dashboard.md). The page and its assets answer without a token (the page holds data
// only for a caller that needs none: initial-state.ts; otherwise it asks for a token and sends it with every API
// call). Its data comes from the same REST API and tools as any client's — every action through the pipeline and the
// audit trail. What is its own: who the caller is, a ticket for the event stream, the stream itself (filtered for the
// caller), and the per-second call series for the charts.
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../../core/context.ts';
import { visible } from '../../core/registry.ts';
import type { Hub } from '../../hub.ts';
import { eventFor } from '../../observe/event-view.ts';
import { MetricsSeries } from '../../observe/metrics-series.ts';
import { type HttpAuth, TOKEN_GONE } from '../../policy/auth.ts';
import type { Exposure } from '../../policy/principal.ts';
import { sendError, sendJson, streamEvents } from '../rest.ts';
import type { Route } from '../route-table.ts';
import { pageState, stateElement, uiSession } from './initial-state.ts';
import { signInOptions, signInOrigins } from './sign-in.ts';
import { UiFiles } from './static.ts';
import { Tickets } from './tickets.ts';

export interface Dashboard {
  /**
   * The dashboard's rows of the server's route table: /ui…, the sign-in options and the ticketed stream open (before
   * authentication); /v1/ui/session, /v1/ui/ticket, /v1/ui/series, /v1/ui/task-history for a caller; a ticket is bound
   * to the token the caller authenticated with.
   */
  routes: Route[];
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
    routes: [
      // HEAD as GET; `/ui/*` matches `/ui` too.
      ...['GET', 'HEAD'].map(
        (method): Route => ({
          method,
          path: '/ui/*',
          open: true,
          async handle({ req, res, path }) {
            if (UiFiles.isAsset(path) || !files.available) return void files.serve(req, res, path);
            const state = await pageState(hub, req, tokenless, seriesFor);
            files.serve(req, res, path, state && stateElement(state));
          },
        }),
      ),
      {
        method: 'GET',
        path: '/v1/ui/sign-in',
        open: true,
        async handle({ res }) {
          const options = await signInOptions(oauth()).catch((err: Error) => err);
          if (options instanceof Error) sendError(res, { code: 'UNAVAILABLE', message: options.message });
          else sendJson(res, 200, options, { 'cache-control': 'no-store' });
        },
      },
      {
        method: 'GET',
        path: '/v1/ui/events',
        open: true,
        async handle({ req, res }) {
          const held = await tickets.redeem(new URL(req.url ?? '/', 'http://localhost').searchParams.get('ticket'));
          // A ticket issued before its token was revoked opens nothing.
          const token = held?.token;
          if (!held || (token && !(await auth.accepts(token))))
            return sendJson(res, 401, {
              error: {
                code: 'UNAUTHORIZED',
                message: held
                  ? 'The token this ticket was issued to has been revoked or has expired; sign in again with a valid token.'
                  : 'The event stream needs a fresh ticket: POST /v1/ui/ticket with your token, then open ?ticket=….',
              },
            });
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
        },
      },
      {
        method: 'GET',
        path: '/v1/ui/session',
        handle: ({ res, principal }) => sendJson(res, 200, uiSession(principal)),
      },
      {
        method: 'POST',
        path: '/v1/ui/ticket',
        async handle({ res, principal, token }) {
          sendJson(res, 200, await tickets.issue(token ? { principal, token } : { principal }), {
            'cache-control': 'no-store',
          });
        },
      },
      {
        method: 'GET',
        path: '/v1/ui/series',
        handle({ res, principal }) {
          if (!seesMetrics(principal))
            sendError(res, { code: 'FORBIDDEN', message: 'The call series needs access to system.metrics.' });
          else sendJson(res, 200, seriesFor(principal));
        },
      },
      {
        method: 'GET',
        path: '/v1/ui/task-history',
        async handle({ req, res, principal }) {
          // A task's changes as the event log kept them (the latest `[events] retain` hub events).
          const id = new URL(req.url ?? '/', 'http://localhost').searchParams.get('id');
          if (!sees(principal, 'task.get'))
            return sendError(res, { code: 'FORBIDDEN', message: 'Task history needs task.get.' });
          if (!id)
            return sendError(res, { code: 'INVALID_INPUT', message: 'Name the task: /v1/ui/task-history?id=t-….' });
          const stored = await hub.services.store.events.recent(hub.config.get().events.retain);
          const events = stored.map((s) => s.event).filter((e) => e.type === 'task.changed' && e.id === id);
          sendJson(res, 200, { events });
        },
      },
      // Anything else under /v1/ui (after the routes above), any method: the dashboard's own routes listed.
      {
        method: 'ALL',
        path: '/v1/ui/*',
        handle: ({ req, res, path }) =>
          sendError(res, {
            code: 'NOT_FOUND',
            message: `No route ${req.method} ${path}. The dashboard's own routes: GET /v1/ui/sign-in, GET /v1/ui/session, POST /v1/ui/ticket, GET /v1/ui/series, GET /v1/ui/task-history?id=…, GET /v1/ui/events?ticket=….`,
          }),
      },
    ],

    close() {
      series.close();
    },
  };
}
