// The timeout step: the call's time limit, resolved from config, token and capability (`limits.ts`). The pipeline's
// `execute` enforces it; this step only decides it, first, so every later step and the handler run under it.
import type { Middleware } from '../../core/pipeline.ts';
import type { LimitsCache } from '../limits.ts';

export function timeoutStep(limits: LimitsCache): Middleware {
  return (state, next) => {
    state.timeoutMs = limits.of(state).limits.timeoutMs;
    return next();
  };
}
