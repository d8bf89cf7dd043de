// Handler modules follow their files under `serve` (issue 29): a change in a handler folder — a module edited, added
// or removed, or a file a module imports — loads the folders' modules again, each replacing what it registered before
// in one catalog change (clients get list_changed). A module that fails to load again keeps serving what it last
// registered, and is reported like a module that failed at start (the log, system.health).
import type { Services } from '../../core/context.ts';
import { watchTargets } from '../../core/watch.ts';
import { loadHandlerModules, type ModuleReport, moduleProblems } from './load.ts';

/** Folder levels watched below a handler folder: its modules, and the helpers in its subfolders. */
const DEPTH = 2;
const DEBOUNCE_MS = 100;

/**
 * Watch `dirs` (absolute; they need not exist yet) and load their modules again on a change. `modules` is the list
 * of the last load, updated in place. Resolves, once watching, with a function that stops.
 *
 * @example
 * const stop = await watchHandlerModules(paths, services, modules);
 */
export async function watchHandlerModules(
  dirs: string[],
  services: Services,
  modules: ModuleReport[],
): Promise<() => Promise<void>> {
  const { registry, logger, problems, store } = services;
  let loads = 0;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const reload = async () => {
    const reports = await loadHandlerModules(dirs, registry, logger, String(++loads));
    // A module file that is gone takes what it registered with it.
    const present = new Set(reports.map((r) => r.file));
    registry.batch(() => {
      for (const old of modules) if (!present.has(old.file)) registry.removeSource(`handlers:${old.file}`);
    });
    modules.splice(0, modules.length, ...reports);
    problems.set('handlers', await moduleProblems(reports, store.documents));
    logger.info({ modules: reports.length }, 'handler modules loaded again');
  };
  // One load at a time; changes that arrive meanwhile make one more.
  const changed = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = reload()
      .catch((err) => logger.error({ err }, 'loading the handler modules again failed'))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          changed();
        }
      });
  };

  const stopWatching = await watchTargets(dirs, { depthBelow: DEPTH, debounceMs: DEBOUNCE_MS, onChange: changed });
  return async () => {
    stopped = true;
    await stopWatching();
    await running;
  };
}
