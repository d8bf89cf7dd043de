// Watching files and folders that may not exist yet (a first `.switchboard/plugins/`, a config file not written
// yet): a folder that exists is watched with chokidar down to its depth; a file, or a folder not there yet, is
// watched through the one entry it needs in its nearest existing folder; bursts of changes are debounced into one
// call.
//
// Why not chokidar on that nearest folder: it is usually `.switchboard/`, where the state database lives, and
// chokidar answers every write to `state.db-wal` (hundreds a second with the audit trail on) with path work and
// folder re-reads — measured at a third of the policy cost per call (BENCHMARKS.md, issue 3). A plain `fs.watch`
// of that folder costs one name comparison per event.
import { existsSync, type FSWatcher, watch as fsWatch, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

export interface WatchOptions {
  /** How many folder levels below a target still count (0: the target itself, for a file). */
  depthBelow: number;
  /** Called once per burst of changes, with the last changed path. */
  onChange: (path: string) => void;
  debounceMs?: number;
}

/** The path itself when it exists, else its nearest existing ancestor. */
export function nearestExisting(path: string): string {
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}

/**
 * Watch `targets` (absolute paths); resolves once every watcher is ready with a function that stops them.
 *
 * @example
 * const stop = await watchTargets([join(dir, '.switchboard', 'plugins')], { depthBelow: 2, onChange: rediscover });
 */
export async function watchTargets(targets: string[], opts: WatchOptions): Promise<() => Promise<void>> {
  let timer: NodeJS.Timeout | undefined;
  const changed = (path: string) => {
    clearTimeout(timer);
    timer = setTimeout(() => opts.onChange(path), opts.debounceMs ?? 100);
  };
  const watchers = [...new Set(targets)].map((target) => new TargetWatcher(target, opts.depthBelow, changed));
  await Promise.all(watchers.map((w) => w.start()));
  return async () => {
    clearTimeout(timer);
    await Promise.all(watchers.map((w) => w.stop()));
  };
}

/** One target: chokidar inside it when it is an existing folder, else `fs.watch` of the one entry on the way. */
class TargetWatcher {
  private close: () => Promise<void> = async () => {};
  private stopped = false;

  constructor(
    private readonly target: string,
    private readonly depthBelow: number,
    private readonly changed: (path: string) => void,
  ) {}

  async start(): Promise<void> {
    if (this.stopped) return;
    if (this.depthBelow > 0 && isFolder(this.target)) {
      const close = await watchFolder(this.target, this.depthBelow, this.changed);
      if (this.stopped) await close();
      else this.close = close;
      return;
    }
    // The folder to watch and the one entry in it that matters: the file itself, or the next folder on the way.
    const folder = nearestExisting(this.depthBelow === 0 ? dirname(this.target) : this.target);
    if (folder === this.target) return; // a file where a folder was expected: nothing to follow
    const entry = relative(folder, this.target).split(sep)[0];
    const leaf = this.depthBelow === 0 && join(folder, entry) === this.target;
    let watcher: FSWatcher;
    try {
      watcher = fsWatch(folder, (_event, name) => {
        // Some platforms give no name: then any change may be ours.
        if (name !== null && name !== entry) return;
        // The file changed, or a folder on the way appeared (or went): the target may be new, so it is what changed;
        // a folder is watched again from the new nearest one first, and reported once that watch is armed.
        if (leaf) this.changed(this.target);
        else void this.restart();
      });
    } catch {
      return; // the folder went away between the check and the watch; nothing is there to follow
    }
    watcher.on('error', () => watcher.close());
    this.close = async () => watcher.close();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.close();
  }

  private async restart(): Promise<void> {
    const close = this.close;
    this.close = async () => {};
    await close();
    await this.start();
    // Reported only now: nothing is watched between the old watcher's close and the new one's ready (chokidar's first
    // scan, seconds on a busy machine), so a read made earlier could miss a file written or removed in between.
    if (!this.stopped) this.changed(this.target);
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** chokidar on an existing folder, down to `depthBelow` levels. */
async function watchFolder(
  folder: string,
  depthBelow: number,
  changed: (path: string) => void,
): Promise<() => Promise<void>> {
  const { watch } = await import('chokidar');
  const within = (path: string) =>
    path === folder ||
    (path.startsWith(`${folder}${sep}`) && path.slice(folder.length + 1).split(sep).length <= depthBelow);
  const watcher = watch(folder, { ignoreInitial: true, ignored: (path) => !within(path) });
  watcher.on('all', (_event, path) => {
    if (within(path)) changed(path);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return () => watcher.close();
}
