// The scripts source: step-based workflows run through MCP. Registers the script.* capabilities, serves every
// NL script as a prompt, keeps prompts in step with the script folders, and records a VCR cassette on request.
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Capability } from '../../core/capability.ts';
import { confineDir } from '../../core/confine.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { LoadProblem } from '../../core/load-problems.ts';
import { watchTargets } from '../../core/watch.ts';
import type { RunningSource, Source } from '../index.ts';
import { LiveRunner } from './auto-runner.ts';
import type { CassetteFormat } from './cassette-read.ts';
import { loadCompiled } from './compiled.ts';
import { scriptContinueCompiledScript } from './continue-compiled-script.ts';
import type { ScriptDeps } from './deps.ts';
import type { EventSink } from './events.ts';
import { scriptFinishNlScript } from './finish-nl-script.ts';
import { scriptList } from './list.ts';
import { ScriptPrompts } from './prompts.ts';
import { listScripts, type ResolvedScript, scriptClashes, scriptRoots } from './resolve.ts';
import { ScriptRuns } from './runs.ts';
import { scriptRuns } from './runs-tool.ts';
import { scriptStart } from './start.ts';
import { scriptStatus } from './status.ts';
import { scriptWriteBundled } from './write-bundled.ts';

/**
 * The cassette recorder (its YAML writer loads only when a cassette is recorded). A cassette that cannot be
 * written is logged, never a failed step: recording must not change what the run does.
 */
async function recorderFor(
  file: string,
  format: CassetteFormat,
  projectDir: string,
  logger: Logger,
): Promise<EventSink> {
  const record = (await import('./cassette.ts')).cassetteRecorder(file, projectDir, format);
  return (event) => {
    try {
      record(event);
    } catch (err) {
      logger.warn({ err, cassette: file }, 'VCR cassette write failed');
    }
  };
}

/** The variables that turn recording on, and the format each records in. */
const CASSETTE_VARIABLES = [
  ['SWITCHBOARD_VCR_CASSETTE', 'switchboard'],
  ['MEKARA_VCR_CASSETTE', 'mekara'],
] as const;

/**
 * One recorder hearing every run, for each cassette variable set (a relative path is relative to the project,
 * wherever the process was started). Both naming one file would interleave two formats in it: Switchboard's wins,
 * and the log says so.
 */
async function cassettesFor(
  env: NodeJS.ProcessEnv,
  projectDir: string,
  logger: Logger,
): Promise<EventSink | undefined> {
  const sinks: EventSink[] = [];
  const files = new Map<string, string>();
  for (const [variable, format] of CASSETTE_VARIABLES) {
    if (!env[variable]) continue;
    const file = resolve(projectDir, env[variable]);
    const taken = files.get(file);
    if (taken) {
      logger.warn(
        { cassette: file },
        `${variable} names the file ${taken} already records into; not recorded in a second format. Give each its own file.`,
      );
      continue;
    }
    files.set(file, variable);
    sinks.push(await recorderFor(file, format, projectDir, logger));
    logger.info({ cassette: file, format }, 'recording script calls to a VCR cassette');
  }
  if (sinks.length <= 1) return sinks[0];
  return async (event) => {
    for (const sink of sinks) await sink(event);
  };
}

const CHILD_ENV_KEYS = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'USER', 'SHELL'];

/** The scripts source's tools; their schemas are module constants (why: src/snapshot-tools.ts). */
export function scriptCapabilities(deps: ScriptDeps): Capability[] {
  return [
    scriptStart(deps),
    scriptContinueCompiledScript(deps),
    scriptFinishNlScript(deps),
    scriptStatus(deps),
    scriptList(deps),
    scriptWriteBundled(deps),
    scriptRuns(deps),
  ] as unknown as Capability[];
}

export const scriptsSource: Source = {
  name: 'scripts',
  async start({ services, env }): Promise<RunningSource> {
    const config = services.config.get().scripts;
    if (!config.enabled) {
      services.features.set({
        name: 'scripts',
        status: 'DisabledByPolicy',
        contractVersion: '1',
        description: 'Step-based scripts',
        reason: '[scripts] enabled = false',
      });
      return { stop() {} };
    }
    const projectDir = services.projectDir;
    const roots = scriptRoots(projectDir, env);
    // Shell steps get a minimal environment from the hub's own (never its secrets).
    const childEnv: Record<string, string> = {};
    for (const k of CHILD_ENV_KEYS) if (env[k] !== undefined) childEnv[k] = env[k] as string;
    const cassette = await cassettesFor(env, projectDir, services.logger);
    // Auto steps run only inside the project or [workspace] extra_dirs (read live: a narrowed list applies at once).
    const confine = (dir: string, base?: string) =>
      confineDir(projectDir, services.config.get().workspace.extra_dirs, dir, 'working_dir', base);
    const runs = new ScriptRuns({
      confine,
      store: services.store,
      instanceId: services.instanceId,
      roots,
      projectDir,
      logger: services.logger,
      pythonEnv: childEnv,
      changed: (run) => services.bus.publish({ type: 'script.changed', ...run, at: new Date().toISOString() }),
      runner: new LiveRunner({
        env: childEnv,
        stepTimeoutMs: config.step_timeout_ms,
        maxOutputBytes: config.max_output_bytes,
      }),
      ...(cassette ? { cassette } : {}),
    });
    const prompts = new ScriptPrompts(services.registry);
    // A mekara script hidden by a same-named Switchboard one is logged once each time the set of clashes changes.
    let loggedClashes = '';
    const clashes = () => {
      const found = scriptClashes(roots, projectDir);
      if (found.join('\n') !== loggedClashes)
        for (const warning of found) services.logger.warn({ warning }, 'script hidden');
      loggedClashes = found.join('\n');
      return found;
    };
    // Compiled scripts are loaded in the background as the folders are read, so one that fails to load shows in
    // system.health (and on the dashboard) before anyone starts it; script.start then finds it loaded.
    let checking = Promise.resolve();
    const checkCompiled = (scripts: ResolvedScript[]) => {
      checking = checking.then(async () => {
        const problems: LoadProblem[] = [];
        for (const { compiledFile: file, compiledLevel } of scripts) {
          if (!file || compiledLevel === 'bundled' || file.endsWith('.py')) continue;
          try {
            await loadCompiled(file);
          } catch (err) {
            const details = (err as SwitchboardError).details as { line?: number; column?: number; reason?: string };
            problems.push({
              source: 'scripts',
              file,
              line: details?.line,
              column: details?.column,
              message: details?.reason ?? (err as Error).message,
            });
          }
        }
        services.problems.set('scripts', problems);
      });
    };
    const refresh = () => {
      const scripts = listScripts(roots);
      prompts.sync(scripts);
      clashes();
      checkCompiled(scripts);
      return scripts;
    };
    const deps: ScriptDeps = {
      runs,
      roots,
      projectDir,
      confine,
      callTimeoutMs: config.call_timeout_ms,
      refresh,
      clashes,
    };
    const caps = scriptCapabilities(deps);
    services.registry.batch(() => {
      for (const cap of caps) {
        const added = services.registry.add({ ...cap, source: 'scripts', feature: 'scripts' });
        if (!added.ok) throw new SwitchboardError('INTERNAL', added.message);
      }
    });
    services.health.register('scripts', () => services.problems.health('scripts', 'every compiled script loads'));
    services.features.set({
      name: 'scripts',
      status: 'Available',
      contractVersion: '1',
      description: 'Step-based scripts: auto steps run here, LLM steps go to the agent, scripts nest',
    });
    // Finished runs older than retention_days, and unfinished ones left that long, go at start and whenever the
    // script folders change (read live: a changed retention applies at the next pass).
    const prune = () => {
      const { retention_days: finished, unfinished_retention_days: left } = services.config.get().scripts;
      const before = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
      const passes: [string, () => Promise<number>][] = [];
      if (finished > 0) passes.push(['finished', () => services.store.scriptRuns.prune(before(finished))]);
      if (left > 0) passes.push(['unfinished', () => runs.pruneUnfinished(before(left))]);
      for (const [which, pass] of passes)
        pass()
          .then((n) => n && services.logger.debug({ pruned: n }, `${which} script runs pruned`))
          .catch((err) => services.logger.warn({ err }, `${which} script runs could not be pruned`));
    };
    refresh();
    prune();
    // Prompts follow the script folders while the hub runs (a new NL file is a new slash command); folders that do
    // not exist yet are watched from their nearest existing parent.
    let closeWatcher: (() => Promise<void>) | undefined;
    const ready: Promise<void> = watchTargets([roots.project, roots.mekara, roots.user, roots['user-mekara']], {
      depthBelow: 10,
      onChange: () => {
        try {
          refresh();
          prune();
        } catch (err) {
          services.logger.warn({ err }, 'script folders could not be re-read');
        }
      },
    })
      .then((stop) => {
        closeWatcher = stop;
      })
      .catch((err) => services.logger.warn({ err }, 'script folders are not watched'));
    return {
      ready,
      async stop() {
        await runs.release();
        await ready;
        await closeWatcher?.();
        prompts.clear();
        services.registry.batch(() => {
          for (const cap of caps) services.registry.remove(cap.name);
        });
      },
    };
  },
};
