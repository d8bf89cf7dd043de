// The built-in `system` domain: health, instance leases, board state, metrics, features, config, audit, tokens and
// the MCP tasks.
// Also owns the background sweep that expires instance leases and returns their tasks to the board.
import type { Capability } from '../../../core/capability.ts';
import type { Feature, Services } from '../../../core/context.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { systemAudit } from './audit.ts';
import { CONTRACT_VERSION, systemCapabilities } from './capabilities.ts';
import { systemConfig } from './config.ts';
import { systemGetState } from './get-state.ts';
import { systemHealth } from './health.ts';
import { systemHeartbeat } from './heartbeat.ts';
import { sweepExpiredInstances, sweepPeriodMs } from './lease.ts';
import { systemMcpTasks } from './mcp-tasks.ts';
import { systemMetrics } from './metrics.ts';
import { systemRegister } from './register.ts';
import { systemTokens } from './tokens.ts';

export { type ExpiredInstance, leaseTtlMs, sweepExpiredInstances } from './lease.ts';

/** Every `system.*` capability, in registration order. */
export const SYSTEM_CAPABILITIES: Capability[] = [
  systemHealth,
  systemRegister,
  systemHeartbeat,
  systemGetState,
  systemMetrics,
  systemCapabilities,
  systemConfig,
  systemAudit,
  systemTokens,
  systemMcpTasks,
] as Capability[];

/** The built-ins' features; every run-time source (plugins, upstream, scripts, agents) reports its own. */
const INITIAL_FEATURES: Feature[] = [
  {
    name: 'task',
    status: 'Available',
    contractVersion: CONTRACT_VERSION,
    description: 'Shared task board: create, assign, track and finish tasks across agents.',
  },
  {
    name: 'system',
    status: 'Available',
    contractVersion: CONTRACT_VERSION,
    description: 'Hub health, instance leases, board state, metrics, features and live configuration.',
  },
  {
    name: 'handlers',
    status: 'Available',
    contractVersion: CONTRACT_VERSION,
    description: 'Typed TypeScript capability modules loaded from handler folders.',
  },
];

/**
 * Register the `system` capabilities and feature statuses, and start the lease-expiry timer (unref'd,
 * every ttl/4 capped at 1 s, re-armed when the configured TTL changes). Returns a stop function.
 *
 * @example
 * const stop = registerSystem(services);
 * // ... on shutdown, before closing the store:
 * stop();
 */
export function registerSystem(services: Services): () => void {
  const { registry, features, logger } = services;
  registry.batch(() => {
    for (const cap of SYSTEM_CAPABILITIES) {
      const added = registry.add({ ...cap, source: 'builtin', feature: 'system' });
      if (!added.ok) throw new SwitchboardError('INTERNAL', added.message);
    }
  });
  // A source that registered earlier may already have reported its real status; never overwrite it.
  const present = new Set(features.list().map((f) => f.name));
  for (const f of INITIAL_FEATURES) if (f.name === 'system' || !present.has(f.name)) features.set(f);

  let stopped = false;
  let sweeping = false;
  const tick = () => {
    // Skip a tick rather than pile sweeps up behind a slow store.
    if (sweeping || stopped) return;
    sweeping = true;
    sweepExpiredInstances(services)
      .catch((err) => {
        if (!stopped) logger.warn({ err }, 'instance lease sweep failed');
      })
      .finally(() => {
        sweeping = false;
      });
  };
  let period = sweepPeriodMs(services);
  let timer = setInterval(tick, period);
  timer.unref();
  const offConfig = services.config.onChange(() => {
    const next = sweepPeriodMs(services);
    if (next === period || stopped) return;
    clearInterval(timer);
    period = next;
    timer = setInterval(tick, period);
    timer.unref();
  });

  return () => {
    stopped = true;
    clearInterval(timer);
    offConfig();
  };
}
