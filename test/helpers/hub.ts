// Test helper: a real hub (real SQLite file) in a fresh temporary project directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '../../src/core/context.ts';
import type { Outcome } from '../../src/core/pipeline.ts';
import { createHub, type Hub, type HubOptions } from '../../src/hub.ts';
import { createLogger } from '../../src/observe/logger.ts';

export const ADMIN: Principal = { id: 'test', roles: ['*'] };

export interface TestHub extends Hub {
  dir: string;
  /** Call a capability through the pipeline as `principal` (default: all roles) over transport `cli`. */
  call(name: string, input?: unknown, principal?: Principal): Promise<Outcome>;
  /** Call and return the value; throws with the error message when the call fails. */
  value<T = any>(name: string, input?: unknown): Promise<T>;
}

export async function testHub(opts: Partial<HubOptions> = {}): Promise<TestHub> {
  const dir = opts.cwd ?? mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  const env = { ...process.env, SWITCHBOARD_HOME: join(dir, '.home'), ...(opts.env ?? {}) };
  const hub = await createHub({ logger: createLogger('silent'), ...opts, cwd: dir, env });
  const call = (name: string, input: unknown = {}, principal: Principal = ADMIN) =>
    hub.pipeline.call({ principal, name, input, transport: 'cli' });
  const closeHub = hub.close.bind(hub);
  return Object.assign(hub, {
    dir,
    call,
    async value(name: string, input?: unknown) {
      const out = await call(name, input);
      if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
      return out.value as any;
    },
    async close() {
      await closeHub();
      if (!opts.cwd) rmSync(dir, { recursive: true, force: true });
    },
  });
}
