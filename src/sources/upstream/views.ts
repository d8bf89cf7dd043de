// How a configured server reads in `mcp list --status`, `system.get_state` and health: its connection's state, the
// names its tools got here (renames, filtered), or why it does not run (disabled, a config error).
import type { Catalog } from '../../mcp-client/catalog.ts';
import type { UpstreamConnection } from '../../mcp-client/connection.ts';
import type { ServerNames } from './naming.ts';

/** One configured server as `mcp list --status`, `system.get_state` and health see it. */
export interface UpstreamView {
  name: string;
  transport?: string;
  status: 'connecting' | 'connected' | 'idle' | 'failed' | 'login_required' | 'stopped' | 'disabled' | 'invalid';
  error?: string;
  tools: number;
  /** True while the tools shown come from the cache of an earlier run (not yet listed by this process). */
  cached: boolean;
  rttMs?: number;
  /** `modern`: the server speaks 2026-07-28 (stateless); `legacy`: a 2025-era server (initialize, sessions). */
  era?: 'modern' | 'legacy';
  restarts: number;
  /**
   * A stdio server's fence: `fenced` (`, no network`), `off` (configured unfenced), or `unfenced: WHY` when the fence
   * could not be built (no bubblewrap, not Linux) and the server runs without it.
   */
  sandbox?: string;
  domain?: string;
  renamed: Array<{ from: string; to: string; reason: string }>;
  filtered: string[];
  /** Tools withheld until an operator approves their new or changed definitions (docs/security.md#pinned-tools). */
  withheld?: number;
}

/** A server with a connection; `catalog` is what it shows (its live listing, or the cached one of an earlier run). */
export function connectedView(
  conn: UpstreamConnection,
  names: ServerNames | undefined,
  catalog: Catalog | undefined,
): UpstreamView {
  const name = conn.name;
  return {
    name,
    transport: conn.server.transport,
    status: conn.status,
    ...(conn.lastError && conn.status !== 'connected' ? { error: conn.lastError } : {}),
    tools: names?.tools.length ?? catalog?.tools.length ?? 0,
    cached: !conn.catalog && catalog !== undefined,
    ...(conn.rttMs !== undefined ? { rttMs: conn.rttMs } : {}),
    ...(conn.era && conn.status === 'connected' ? { era: conn.era } : {}),
    restarts: conn.restarts,
    ...(conn.server.transport === 'stdio' ? { sandbox: fenceLabel(conn) } : {}),
    ...(names ? { domain: names.domain } : {}),
    renamed: [
      ...(names?.domainReason ? [{ from: name, to: names.domain, reason: names.domainReason }] : []),
      ...(names?.tools ?? [])
        .filter((t) => t.renamed)
        .map((t) => ({ from: t.renamed?.from as string, to: t.name, reason: t.renamed?.reason as string })),
    ],
    filtered: names?.filtered ?? [],
  };
}

function fenceLabel(conn: UpstreamConnection): string {
  const fence = conn.server.fence;
  if (!fence) return 'off';
  if (conn.fence && !conn.fence.fenced) return `unfenced: ${conn.fence.why}`;
  return fence.network ? 'fenced' : 'fenced, no network';
}

/** A server that is configured but cannot run. */
export function inactiveView(name: string, state: { status: 'disabled' | 'invalid'; error?: string }): UpstreamView {
  return {
    name,
    status: state.status,
    ...(state.error ? { error: state.error } : {}),
    tools: 0,
    cached: false,
    restarts: 0,
    renamed: [],
    filtered: [],
  };
}
