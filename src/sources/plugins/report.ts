// A hook report as text a model can act on: the verdict first, failing directories with their output (head and
// tail), then the ones that passed or were skipped by the cache, in about 25,000 characters at most.
import { capHeadTail, OUTPUT_CAP } from './output.ts';
import type { DirectoryResult, HookReport } from './run.ts';

/** What the cache says when it skipped a directory. */
export const CACHED_NOTE = 'No changes since the last successful run. To force a re-run, use cache=false.';

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function dirLine(d: DirectoryResult): string {
  if (d.skipped) return `⏭️ ${d.directory}: not run, ${d.skipped}`;
  if (d.cached) return `✅ ${d.directory}: ${CACHED_NOTE}`;
  if (d.ok) return `✅ ${d.directory}: passed (${secs(d.durationMs)})`;
  const why = d.timedOut ? 'timed out' : d.idleTimedOut ? 'stopped for lack of output' : `exit code ${d.exitCode}`;
  return `❌ ${d.directory}: failed, ${why} (${secs(d.durationMs)})`;
}

function verdict(r: HookReport): string {
  if (r.note && r.directories.length === 0) return `${r.nothingRan ? '⚠️' : '❌'} ${r.tool}: ${r.note}`;
  const failed = r.directories.filter((d) => !d.ok).length;
  const total = r.directories.length;
  if (failed) return `❌ ${r.tool} failed in ${failed} of ${total} ${total === 1 ? 'directory' : 'directories'}.`;
  if (r.directories.every((d) => d.cached)) return `✅ ${r.tool}: ${CACHED_NOTE}`;
  const ran = r.directories.filter((d) => !d.skipped).length;
  if (ran === 0) return `⏭️ ${r.tool}: not run in any directory (see below).`;
  return `✅ ${r.tool} passed in ${ran} ${ran === 1 ? 'directory' : 'directories'}.`;
}

/**
 * Render a report. Each failing directory's output gets an equal share of the cap; dependencies that ran come
 * after the hook's own result.
 *
 * @example
 * renderReport(report) // '❌ jutsu_typescript__lint failed in 1 of 2 directories.\n\n❌ packages/b: …'
 */
export function renderReport(r: HookReport, cap = OUTPUT_CAP): string {
  const parts = [verdict(r), `Command: ${r.command}`];
  if (!r.ok && r.tip) parts.push(`Tip: ${r.tip}`);
  const failing = r.directories.filter((d) => !d.ok);
  const share = Math.max(2_000, Math.floor(cap / Math.max(1, failing.length)));
  for (const d of r.directories) {
    parts.push(d.ok ? dirLine(d) : `${dirLine(d)}\n${capHeadTail(d.output.trimEnd(), share)}`);
  }
  for (const n of r.notices ?? []) parts.push(`⚠️ ${n}`);
  // A dependency that passed is one line; one that failed is why this hook did not run, so it is shown in full.
  for (const dep of r.dependencies) {
    parts.push(
      dep.ok
        ? `Dependency ${dep.plugin}/${dep.hook}: ${verdict(dep)}`
        : `Dependency ${dep.plugin}/${dep.hook}:\n${renderReport(dep, Math.floor(cap / 2))}`,
    );
  }
  return capHeadTail(parts.join('\n\n'), cap + 2_000);
}

/** The report as structured content (outputs left out: the text carries them). */
export function reportData(r: HookReport): Record<string, unknown> {
  return {
    plugin: r.plugin,
    hook: r.hook,
    ok: r.ok,
    ...(r.note ? { note: r.note } : {}),
    directories: r.directories.map(({ output: _output, ...d }) => d),
    dependencies: r.dependencies.map(reportData),
  };
}
