// `switchboard snapshot build|status|clear`: the startup snapshot of this install in the user's cache
// (src/cli/snapshot-cache.ts). `serve` builds it by itself in the background; these are for seeing and redoing it.
import { rmSync } from 'node:fs';
import { CliError } from './output.ts';
import { buildSnapshot, ownSlot, type SnapshotSlot, snapshotState } from './snapshot-cache.ts';

function slotOrFail(): SnapshotSlot {
  const slot = ownSlot();
  if (!slot)
    throw new CliError(
      process.platform === 'win32'
        ? 'The startup snapshot is started by the POSIX shell launcher, which Windows does not run: serve starts without it.'
        : 'This install has no dist/snapshot.cjs to build a snapshot from (run npm run build in a checkout).',
      1,
    );
  return slot;
}

/** Build (or rebuild) the snapshot now; `quiet` for the background build `serve` starts. */
export async function build(opts: { quiet?: boolean }): Promise<void> {
  const slot = slotOrFail();
  const result = await buildSnapshot(slot);
  if (result.ok) {
    if (!opts.quiet) process.stdout.write(`Built the startup snapshot in ${result.ms} ms: ${slot.blob}\n`);
    return;
  }
  if ('busy' in result && result.busy) {
    if (!opts.quiet)
      process.stdout.write(`A build is already running (${slot.lock}); serve will use it when it is done.\n`);
    return;
  }
  throw new CliError(`Could not build the startup snapshot: ${result.error}`, 1);
}

/** Where the snapshot is and whether the next `serve` starts from it. */
export function status(): void {
  const slot = slotOrFail();
  const state = snapshotState(slot);
  process.stdout.write(
    `${state.ready ? 'ready' : `not used: ${state.why}`}\n  snapshot  ${slot.blob}\n  built by  ${slot.builtBy}\n  from      ${slot.dist}/snapshot.cjs\n`,
  );
}

/** Remove this install's snapshot; the next `serve` starts without it and builds it again. */
export function clear(): void {
  const slot = slotOrFail();
  for (const f of [slot.blob, slot.builtBy, slot.failed]) rmSync(f, { force: true });
  process.stdout.write(`Removed ${slot.blob}\n`);
}
