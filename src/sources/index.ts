// The run-time sources a hub starts after its built-ins: each adds and removes capabilities, resources and
// prompts through the registry. Loaded lazily so a hub pays only for the sources it starts.
import type { Services } from '../core/context.ts';
import type { Pipeline } from '../core/pipeline.ts';

/** What a source gets: the shared services, and the pipeline for sources that call capabilities themselves. */
export interface SourceContext {
  services: Services;
  pipeline: Pipeline;
  /** The process environment the hub was started with (config expansion, child environments). */
  env: NodeJS.ProcessEnv;
  /** The sources started before this one, by name (the hook tools ask the plugins source for its decisions). */
  sources: ReadonlyMap<string, RunningSource>;
}

/** A started source. `stop` ends its background work (watchers, child processes, timers). */
export interface RunningSource {
  stop(): Promise<void> | void;
  /** Resolves once the source's first discovery settled (tests and `mcp list --status` wait on it). */
  ready?: Promise<void>;
  /**
   * Resolves once the source has listed what it has at start, each part within its own time limit (upstream: every
   * server without a cached catalog connected, failed, or passed its `startup_timeout_ms`; one shown from its cached
   * catalog is not waited for). The first lists a client asks for wait on it (`catalogReady`). A source without it
   * registers everything it lists in `start`.
   */
  listed?: Promise<void>;
}

export interface Source {
  /** Short name for logs and health (`upstream`, `plugins`, `scripts`, `agents`). */
  name: string;
  /**
   * Register what the source provides. It must return quickly: slow discovery (connecting to servers) runs in
   * the background and reports through `ready`, so one slow source never delays `tools/list`.
   */
  start(ctx: SourceContext): Promise<RunningSource>;
}

/** Every run-time source, in start order. One line each, loaded on demand. */
export const SOURCES: Array<() => Promise<Source>> = [
  // Plugins first: the servers their manifests bring are started by the upstream source.
  async () => (await import('./plugins/index.ts')).pluginsSource,
  async () => (await import('./upstream/index.ts')).upstreamSource,
  async () => (await import('./scripts/index.ts')).scriptsSource,
  async () => (await import('./agents/index.ts')).default,
  // After plugins and scripts: the hook tools answer with their decisions.
  async () => (await import('./hooks/index.ts')).hooksSource,
];
