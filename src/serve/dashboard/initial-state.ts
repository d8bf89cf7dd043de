// What the dashboard page holds when it arrives (issue 29): who its caller is and the answers its first views (the
// Overview, the Tasks board) would ask for, so the page shows them at once — before any request of its own, before
// the event stream opens, and in a plain `chromium --headless --screenshot`. Only for a page request that needs no
// token (on loopback while no token exists and no OAuth is configured): such a caller already gets all of it from the
// API. Any other request learns only that the page must log in.
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../../core/context.ts';
import type { Hub } from '../../hub.ts';
import { hasRole } from '../../policy/auth.ts';
import { TASK_STATUSES } from '../../store/contract.ts';

/** Who the caller is, as `GET /v1/ui/session` answers it. */
export interface UiSession {
  principal: string;
  kind: string;
  roles: string[];
  admin: boolean;
}

export function uiSession(principal: Principal): UiSession {
  return {
    principal: principal.id,
    kind: principal.kind ?? 'token',
    roles: principal.roles,
    admin: hasRole(principal, ['admin']),
  };
}

/** A request the page would make and its answer: the page shows it until its own request answers. */
export interface PageAnswer {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
  answer: unknown;
}

/** The page's state: `session: null` when the caller must log in (and then no answers). */
export interface PageState {
  session: UiSession | null;
  answers: PageAnswer[];
}

/** Rows a Tasks column reads at first (web/dashboard/views/tasks.ts asks for the same). */
const TASK_PAGE = 50;

/** The tool calls the Overview and the Tasks board make first, with the input the page sends. */
const FIRST_CALLS: [string, Record<string, unknown>][] = [
  ['system.health', {}],
  ['system.get_state', {}],
  ['system.servers', { action: 'list' }],
  ...TASK_STATUSES.map((s): [string, Record<string, unknown>] => ['task.list', { status: [s], limit: TASK_PAGE }]),
];

/** How long the page waits for those answers; one that takes longer is left for the page to ask itself. */
const ANSWER_WAIT_MS = 1000;

/**
 * The state of a page request: undefined when the request carries credentials of its own (the page, holding no
 * token, could not use them) or authentication cannot be decided now (the store away) — the page then asks as it
 * always did; `session: null` when a request without a token is refused; otherwise the tokenless principal's
 * session and the first views' answers, each through the pipeline as that principal would call it (roles, exposure,
 * limits, audit) — a call it may not make is left out. `tokenless` is the principal a request without a token is
 * (null: none), `series` the call series' answer for a principal (undefined: it may not read it).
 */
export async function pageState(
  hub: Hub,
  req: IncomingMessage,
  tokenless: (req: IncomingMessage) => Promise<Principal | null>,
  series: (principal: Principal) => { points: unknown } | undefined,
): Promise<PageState | undefined> {
  if (req.headers.authorization !== undefined) return undefined;
  let principal: Principal | null;
  try {
    principal = await tokenless(req);
  } catch {
    return undefined;
  }
  if (!principal) return { session: null, answers: [] };
  const signal = AbortSignal.timeout(ANSWER_WAIT_MS);
  const answers = await Promise.all(
    FIRST_CALLS.map(async ([name, input]): Promise<PageAnswer | undefined> => {
      const outcome = await hub.pipeline.call({ principal, name, input, transport: 'rest', signal });
      return outcome.ok && !outcome.raw
        ? { method: 'POST', path: `/v1/tools/${name}`, body: input, answer: outcome.value ?? null }
        : undefined;
    }),
  );
  const points = series(principal);
  return {
    session: uiSession(principal),
    answers: [
      ...answers.filter((a) => a !== undefined),
      ...(points === undefined ? [] : [{ method: 'GET' as const, path: '/v1/ui/series', answer: points }]),
    ],
  };
}

/**
 * The state as a JSON data block for the page: not a script (the CSP allows none inline), and with every `<` escaped
 * so no text from the hub can end the element; `holdsData` when it holds a caller's session and answers.
 */
export function stateElement(state: PageState): { element: string; holdsData: boolean } {
  const json = JSON.stringify(state).replace(/</g, '\\u003c');
  return { element: `<script type="application/json" id="page-state">${json}</script>`, holdsData: !!state.session };
}
