// Files Switchboard found but could not use — a handler module that fails to load, an invalid plugin manifest, a
// compiled script that fails to load — kept by the source that read them, so `system.health` (degraded), the
// dashboard and the answer to a call of a tool such a file would define can each say which file, where, and why.
import { argv } from './argv.ts';
import type { HealthCheck } from './context.ts';
import { runProcess } from './process.ts';

export type ProblemSource = 'handlers' | 'plugins' | 'scripts';

export interface LoadProblem {
  source: ProblemSource;
  /** The file, absolute (callers see it relative to the project: core/caller-paths.ts). */
  file: string;
  line?: number;
  column?: number;
  message: string;
  /**
   * Capability names the file would define: those it defined when it last loaded, else its domains (`text.*` for
   * `text.ts`, a plugin's domain), each ending in `.*`.
   */
  names?: string[];
}

/** `file:line:column: message` (line and column when known). */
export function problemText(p: Pick<LoadProblem, 'file' | 'line' | 'column' | 'message'>): string {
  const at = p.line === undefined ? '' : `:${p.line}${p.column === undefined ? '' : `:${p.column}`}`;
  return `${p.file}${at}: ${p.message}`;
}

/** Each source's current problems; a source replaces its own whole list whenever it reads its files again. */
export class LoadProblems {
  private readonly bySource = new Map<ProblemSource, LoadProblem[]>();

  /**
   * `shown` writes a file as a caller reads it (relative to the project: `callerPaths`); `changed` is told when a
   * source's list changes (the hub publishes `problems.changed`, so the dashboard reads health again).
   */
  constructor(
    private readonly shown: (text: string) => string = (text) => text,
    private readonly changed: () => void = () => {},
  ) {}

  set(source: ProblemSource, problems: LoadProblem[]): void {
    const before = JSON.stringify(this.bySource.get(source) ?? []);
    this.bySource.set(source, problems);
    if (JSON.stringify(problems) !== before) this.changed();
  }

  /** Every problem as a caller is shown it: files relative to the project. */
  forCaller(): LoadProblem[] {
    return this.list().map(({ names: _names, ...p }) => ({ ...p, file: this.shown(p.file) }));
  }

  list(source?: ProblemSource): LoadProblem[] {
    return source ? (this.bySource.get(source) ?? []) : [...this.bySource.values()].flat();
  }

  /** The broken file a tool or capability name (`text__count`, `text.count`) belongs to, if any. */
  forTool(name: string): LoadProblem | undefined {
    const capability = name.replaceAll('__', '.');
    return this.list().find((p) =>
      p.names?.some((n) => (n.endsWith('.*') ? capability.startsWith(n.slice(0, -1)) : n === capability)),
    );
  }

  /** A source's health: degraded while any of its files is broken, naming each (file:line: why). */
  health(source: ProblemSource, healthy: string): HealthCheck {
    const problems = this.list(source);
    if (!problems.length) return { status: 'healthy', detail: healthy };
    return {
      status: 'degraded',
      detail: this.shown(`${problems.length} file(s) failed to load: ${problems.map(problemText).join(' | ')}`),
    };
  }
}

/** The error a module import threw, as a problem's message and place: the message without the place in it. */
export interface LocatedError {
  message: string;
  line?: number;
  column?: number;
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Where in `file` an import error points. esbuild (TypeScript through tsx) names `file:line:col` in its message; an
 * error thrown while the module ran names it in a stack frame; a JavaScript syntax error names no place at all, so
 * `node --check` is asked (only then: it starts a process).
 */
export async function locateImportError(file: string, err: unknown): Promise<LocatedError> {
  const error = err instanceof Error ? err : new Error(String(err));
  const path = literal(file);
  const esbuild = new RegExp(`${path}:(\\d+):(\\d+): ERROR: (.*)`).exec(error.message);
  // esbuild counts columns from 0; editors, node and the other places here count from 1.
  if (esbuild) return { message: esbuild[3], line: Number(esbuild[1]), column: Number(esbuild[2]) + 1 };
  const message = error.message.split('\n')[0];
  const frame = new RegExp(`(?:${path}|${literal(`file://${file}`)})(?:\\?[^:]*)?:(\\d+):(\\d+)`).exec(
    error.stack ?? '',
  );
  if (frame) return { message, line: Number(frame[1]), column: Number(frame[2]) };
  if (error.name === 'SyntaxError' && /\.[mc]?js$/.test(file)) {
    const checked = await nodeCheck(file);
    if (checked) return { message: `SyntaxError: ${message}`, ...checked };
  }
  return { message };
}

/** `node --check FILE`: the line of its first syntax error, and the column its caret marks. */
async function nodeCheck(file: string): Promise<{ line: number; column?: number } | undefined> {
  try {
    const r = await runProcess(process.execPath, argv().flag('--check').nonOption(file).build(), {
      signal: new AbortController().signal,
      timeoutMs: 10_000,
    });
    const lines = r.stderr.split('\n');
    const at = lines.findIndex((l) => l.startsWith(file) || l.startsWith(`file://${file}`));
    const line = at >= 0 ? /:(\d+)$/.exec(lines[at]) : null;
    if (!line) return undefined;
    const caret = lines[at + 2]?.indexOf('^') ?? -1;
    return { line: Number(line[1]), ...(caret >= 0 ? { column: caret + 1 } : {}) };
  } catch {
    return undefined;
  }
}
