// CLI output helpers: results to stdout, diagnostics to stderr, colour only for a terminal, and one way to fail
// with a clear message.
import type { WriteStream } from 'node:tty';
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

/**
 * Whether to colour what goes to `stream`: never with NO_COLOR set (https://no-color.org), always with FORCE_COLOR
 * set to anything but 0 or false, else only for a terminal (not TERM=dumb). Unlike picocolors' own guess, CI=true
 * alone does not colour: piped output is read by programs.
 */
export function wantsColour(stream: Pick<WriteStream, 'isTTY'>, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  const forced = env.FORCE_COLOR;
  if (forced !== undefined && forced !== '0' && forced !== 'false') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

type Colours = ReturnType<typeof pc.createColors>;
const made: { stdout?: Colours; stderr?: Colours } = {};

/**
 * Colours for stdout (`colour()`) or stderr (`colour('stderr')`): plain text when that stream is not a terminal.
 * Made on first use, not when this module is evaluated (the startup snapshot evaluates it while building).
 */
export function colour(stream: 'stdout' | 'stderr' = 'stdout'): Colours {
  made[stream] ??= pc.createColors(wantsColour(process[stream]));
  return made[stream];
}

export function fail(err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  const code =
    err instanceof CliError ? err.exitCode : err instanceof SwitchboardError && err.code === 'INVALID_INPUT' ? 2 : 1;
  process.stderr.write(`${colour('stderr').red('switchboard:')} ${message}\n`);
  process.exit(code);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
