// CLI output helpers: results to stdout, diagnostics to stderr, and one way to fail with a clear message.
import pc from 'picocolors';
import { SwitchboardError } from '../core/errors.ts';

/** Exit codes: 1 for a failed operation, 2 for bad usage or input. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function fail(err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  const code =
    err instanceof CliError ? err.exitCode : err instanceof SwitchboardError && err.code === 'INVALID_INPUT' ? 2 : 1;
  process.stderr.write(`${pc.red('switchboard:')} ${message}\n`);
  process.exit(code);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
