// The HTTP server's routes as one table (http.ts, dashboard/routes.ts), matched by Hono's RegExpRouter: one compiled
// regular expression per method, built on the first match. Only the router is Hono's; requests and responses stay
// node:http's, so the MCP fast paths see the request as Node gave it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import type { Principal } from '../core/context.ts';

/** A request as a route's handler gets it: `path` normalised, `params` the route's `:name` segments (still encoded). */
export interface RouteRequest {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  params: Record<string, string>;
}

/** A request that authenticated: its principal, and the Switchboard token it used, by hash (`AuthResult.token`). */
export interface CallerRequest extends RouteRequest {
  principal: Principal;
  token?: string;
}

/**
 * One route. `method`: an HTTP method, or `ALL`; `path`: a Hono path (`/mcp/:profile`, `/ui/*`; no trailing slash is
 * implied). An `open` route answers before authentication (probes, metadata, the dashboard's page); any other answers
 * an authenticated caller, only an admin when `admin`, and in JSON-RPC's error shape when `jsonRpc` (MCP).
 */
export type Route =
  | { method: string; path: string; open: true; jsonRpc?: false; handle(request: RouteRequest): Promise<void> | void }
  | {
      method: string;
      path: string;
      open?: false;
      admin?: true;
      jsonRpc?: boolean;
      handle(request: CallerRequest): Promise<void> | void;
    };

/** Routes matched first-listed first: a specific route before the catch-all that would also match it. */
export class RouteTable {
  readonly #router = new RegExpRouter<Route>();

  constructor(routes: readonly Route[]) {
    for (const route of routes) this.#router.add(route.method, route.path, route);
  }

  /** The first route listed that matches, and its parameters; undefined when none does. */
  match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    const [matches, stash] = this.#router.match(method, path);
    const first = matches[0];
    if (!first) return undefined;
    // RegExpRouter answers each parameter as an index into `stash`.
    const [route, indexes] = first as [Route, Record<string, number>];
    const params: Record<string, string> = {};
    for (const name in indexes) params[name] = stash?.[indexes[name] as number] ?? '';
    return { route, params };
  }
}
