// test.circuit: a capability that fails, or is slow, on demand, so an operator can watch a circuit breaker open,
// refuse, half-open and close (ClaudeBench's test.circuit, same input and output). It fails on purpose, so only
// admins see it.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';

/** The breaker and time limit it runs under, as ClaudeBench's: open after 5 failures, try again after 1 s. */
export const TEST_CIRCUIT_POLICY = { breaker: { threshold: 5, resetMs: 1000 }, timeoutMs: 1000 } as const;

export const testCircuit = defineCapability({
  name: 'test.circuit',
  title: 'Exercise a circuit breaker',
  description:
    "Fail (shouldFail: true) or wait (delay, ms; over 1000 times out) on purpose, to see this capability's circuit breaker open after 5 failures, answer UNAVAILABLE while open, and close again after 1 s on a success. Watch it in system.health (breakers) and switchboard_breaker_state in /metrics.",
  input: z.object({
    shouldFail: z.boolean().default(false).describe('Fail this call (counts as an execution failure).'),
    failureMessage: z.string().max(1000).optional().describe('The message of the failure; default "Test failure".'),
    delay: z.number().int().min(0).max(10_000).optional().describe('Wait this many ms before answering.'),
  }),
  output: z.object({ success: z.boolean(), message: z.string() }),
  roles: ['admin'],
  feature: 'system',
  policy: TEST_CIRCUIT_POLICY,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async ({ shouldFail, failureMessage, delay }, ctx) => {
    // The pipeline answers TIMEOUT or CANCELLED itself when the signal aborts; the signal also clears the timer.
    if (delay) await sleep(delay, undefined, { signal: ctx.signal });
    if (shouldFail) throw new SwitchboardError('INTERNAL', failureMessage ?? 'Test failure');
    return { success: true, message: 'Test handler executed successfully' };
  },
});
