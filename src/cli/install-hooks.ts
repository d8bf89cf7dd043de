// The plugin-hook part of `install|uninstall claude-code`: one `hook dispatch` entry per event the project's plugin
// hooks run on, in place of Han's own `han hook dispatch …` / `han hook run …` entries in the settings file install
// edits, and `HAN_DISABLE_HOOKS=1` in its `env` so the `han hook run …` commands of Han's plugins' own hooks.json
// (which Claude Code runs while the plugins are enabled) exit at once instead of running every check a second time.
// What install replaced is kept in a record file, so uninstall puts Han's entries back as they were.
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { commandLine, type LaunchForm, runsSwitchboard } from '../config/agent-launch.ts';
import { claudeSettingsFiles } from '../sources/plugins/claude-code.ts';
import type { Discovery } from '../sources/plugins/discover.ts';
import { findHook } from '../sources/plugins/index.ts';
import { AGENT_EVENTS, eventsOf } from '../sources/plugins/manifest.ts';
import { removeEmptyDirs } from './agent-files.ts';

type Json = Record<string, any>;

const DISPATCH = ['hook', 'dispatch'];
/** Seconds Claude Code waits for `hook dispatch`: the checks it runs (a test suite) outlast Claude Code's default. */
export const DISPATCH_TIMEOUT_S = 600;
/** Han's switch: `han hook run` and `han hook dispatch` exit 0 at once when it is `1` (Han's run.ts, dispatch.ts). */
export const HAN_OFF = 'HAN_DISABLE_HOOKS';
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse']);

/** What a Han command line in Claude Code's hooks runs. */
export type HanCommand = { kind: 'dispatch'; event: string } | { kind: 'run'; plugin: string; hook: string };

/** Han's command: `han`, a path to it, or its package as npx/bunx name it (`@thebushidocollective/han@1.2`). */
const HAN_WORD = /^(?:.*[/\\])?han(?:\.exe|\.cmd)?$|^@thebushidocollective\/han(?:@\S*)?$/;
/** What may come before Han's command: a package runner and its flags (`npx -y`). */
const LAUNCHER_WORD = /^(?:npx|bunx|pnpx|pnpm|yarn|dlx|exec|-y|--yes)$/;

/**
 * Han's `han hook dispatch EVENT` / `han hook run PLUGIN HOOK` (options after them allowed), in any form Han writes
 * them: `han …`, `npx -y @thebushidocollective/han …`. Anything else, Han's other `hook` commands included
 * (`han hook context`), is not one.
 *
 * @example
 * hanCommandOf('han hook run relay compile --async') // { kind: 'run', plugin: 'relay', hook: 'compile' }
 */
export function hanCommandOf(line: unknown): HanCommand | undefined {
  if (typeof line !== 'string') return undefined;
  const words = line.trim().split(/\s+/);
  const at = words.findIndex((w) => HAN_WORD.test(w));
  if (at < 0 || !words.slice(0, at).every((w) => LAUNCHER_WORD.test(w)) || words[at + 1] !== 'hook') return undefined;
  const [sub, a, b] = words.slice(at + 2);
  const plain = (w: string | undefined): w is string => w !== undefined && !w.startsWith('-');
  if (sub === 'dispatch' && plain(a)) return { kind: 'dispatch', event: a };
  if (sub === 'run' && plain(a) && plain(b)) return { kind: 'run', plugin: a, hook: b };
  return undefined;
}

/** Glob characters a Claude Code matcher (a regular expression) would read differently: such a filter takes all. */
const GLOB = /[*?[\]{}()!|]/;

/**
 * The events the discovered hooks run on, in Claude Code's order, each with the matcher its entry gets: for tool
 * events the tools named (`Edit|Write`), `''` when some hook takes every tool; none for other events. `hook dispatch`
 * filters again, so the matcher only saves a process start per unrelated tool call.
 */
export function dispatchTargets(discovery: Discovery): { event: string; matcher?: string }[] {
  const tools = new Map<string, Set<string> | 'all'>();
  for (const plugin of discovery.plugins)
    for (const hook of plugin.hooks)
      for (const e of eventsOf(hook.spec, plugin.format)) {
        const names = e.tools ?? hook.spec.tool_filter;
        const had = tools.get(e.event);
        if (!TOOL_EVENTS.has(e.event) || !names?.length || names.some((n) => GLOB.test(n)) || had === 'all')
          tools.set(e.event, 'all');
        else tools.set(e.event, new Set([...(had ?? []), ...names]));
      }
  return AGENT_EVENTS.filter((event) => tools.has(event)).map((event) => {
    const t = tools.get(event) as Set<string> | 'all';
    if (!TOOL_EVENTS.has(event)) return { event };
    return { event, matcher: t === 'all' ? '' : [...t].join('|') };
  });
}

/** What install replaced, for uninstall: kept in Switchboard's folder, not in Claude Code's settings. */
interface HanRecord {
  settings: string;
  /** Per event: its hook groups before install took Han's out, and right after (Switchboard's own never in them). */
  hooks: Record<string, { before: Json[]; after: Json[] }>;
  /** The order of `hooks`' keys before, so a restored event is where it was. */
  order: string[];
  /** Whether install added `env.HAN_DISABLE_HOOKS` (uninstall then removes it). */
  env?: boolean;
}

/** Where the record is: the project's `.switchboard/`, or the user's (`$SWITCHBOARD_HOME`, `~/.switchboard`). */
export function recordFile(scope: 'project' | 'user', cwd: string, env: NodeJS.ProcessEnv): string {
  const home = scope === 'user' ? (env.SWITCHBOARD_HOME ?? join(env.HOME ?? homedir(), '.switchboard')) : undefined;
  return join(home ?? join(cwd, '.switchboard'), 'claude-code-han-hooks.json');
}

function readRecord(file: string, settingsFile: string): HanRecord | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as HanRecord;
    return r.settings === settingsFile && r.hooks && Array.isArray(r.order) ? r : undefined;
  } catch {
    return undefined; // not ours to understand: left alone, and uninstall restores nothing from it
  }
}

const commandsOf = (groups: Json[]) =>
  groups.flatMap((g) => (Array.isArray(g?.hooks) ? g.hooks.map((h: Json) => h?.command) : []));

/** The groups without the hook entries `drop` picks; groups left empty go. */
export function withoutEntries(groups: Json[], drop: (command: unknown) => boolean): Json[] {
  return groups
    .map((g) => (Array.isArray(g?.hooks) ? { ...g, hooks: g.hooks.filter((h: Json) => !drop(h?.command)) } : g))
    .filter((g) => !Array.isArray(g?.hooks) || g.hooks.length > 0);
}

const isDispatch = (command: unknown) => runsSwitchboard(command, DISPATCH);

export interface PluginHooksChange {
  /** The events given a `hook dispatch` entry (all of them, written now or already there). */
  events: string[];
  /** Han's command lines taken out now. */
  replaced: string[];
  /** Han's command lines on the settings file that were left, with why. */
  kept: string[];
  /** Whether Han's entries were replaced by an earlier install (the record is there). */
  replacedBefore: boolean;
  /** Whether `env.HAN_DISABLE_HOOKS` is now set by install. */
  hanOff: boolean;
  notes: string[];
  /** The record to save once the settings are written, when this install replaced something. */
  record?: string;
}

export interface PluginHooksInstall {
  settings: Json;
  settingsFile: string;
  discovery: Discovery;
  form: LaunchForm;
  /** Whether a command is one of Switchboard's own hooks that install writes besides `hook dispatch`. */
  ours: (command: unknown) => boolean;
  recordPath: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * Write the `hook dispatch` entries into `settings.hooks` (an object) and take Han's out when Switchboard runs
 * Han's plugins here; `record` is what to save when something of Han's was replaced. Idempotent: a second run
 * changes nothing.
 */
export function installPluginHooks(o: PluginHooksInstall): PluginHooksChange {
  const { settings, discovery } = o;
  const hooks: Json = settings.hooks;
  const previous = readRecord(o.recordPath, o.settingsFile);
  const record: HanRecord = previous ?? { settings: o.settingsFile, hooks: {}, order: Object.keys(hooks) };
  const change: PluginHooksChange = {
    events: [],
    replaced: [],
    kept: [],
    replacedBefore: previous !== undefined,
    hanOff: false,
    notes: [],
  };
  // Han's entries go only where Switchboard runs Han's plugins instead: otherwise they would run nothing at all.
  const takeOver = discovery.plugins.some((p) => p.format === 'han' && p.hooks.length > 0);
  const replaceable = (command: unknown): boolean => {
    const han = hanCommandOf(command);
    if (!han || !takeOver) return false;
    return han.kind === 'dispatch' || findHook(discovery, han.plugin, han.hook) !== undefined;
  };
  let recorded = false;
  const mine = (c: unknown) => o.ours(c) || isDispatch(c);
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const command of commandsOf(groups)) {
      const han = hanCommandOf(command);
      if (!han) continue;
      if (replaceable(command)) change.replaced.push(command);
      else if (!takeOver) change.kept.push(`${command} (Switchboard found no Han plugin with hooks to run instead)`);
      else if (han.kind === 'run')
        change.kept.push(`${command} (no plugin ${han.plugin} with a hook ${han.hook} is found here)`);
    }
    const after = withoutEntries(groups, replaceable);
    if (isDeepStrictEqual(after, groups)) continue;
    record.hooks[event] = { before: withoutEntries(groups, mine), after: withoutEntries(after, mine) };
    recorded = true;
    if (after.length) hooks[event] = after;
    else delete hooks[event];
  }
  const targets = dispatchTargets(discovery);
  change.events = targets.map((t) => t.event);
  syncDispatch(hooks, targets, o.form);
  if (takeOver && settings.env?.[HAN_OFF] === undefined) {
    settings.env = { ...(settings.env ?? {}), [HAN_OFF]: '1' };
    record.env = true;
    recorded = true;
  }
  change.hanOff = takeOver && settings.env?.[HAN_OFF] === '1';
  if (recorded) change.record = `${JSON.stringify(record, null, 2)}\n`;
  change.notes.push(...elsewhere(o, takeOver));
  return change;
}

/** Each target event gets exactly one `hook dispatch` entry; Switchboard's others (older forms, old events) go. */
function syncDispatch(hooks: Json, targets: { event: string; matcher?: string }[], form: LaunchForm): void {
  const command = commandLine(DISPATCH, form);
  const want = new Map(
    targets.map((t) => [
      t.event,
      {
        ...(t.matcher === undefined ? {} : { matcher: t.matcher }),
        hooks: [{ type: 'command', command, timeout: DISPATCH_TIMEOUT_S }],
      },
    ]),
  );
  for (const event of new Set([...Object.keys(hooks), ...want.keys()])) {
    const groups: Json[] = Array.isArray(hooks[event]) ? hooks[event] : [];
    const group = want.get(event);
    if (group && groups.some((g) => isDeepStrictEqual(g, group))) continue;
    if (!group && !commandsOf(groups).some(isDispatch)) continue;
    const kept = [...withoutEntries(groups, isDispatch), ...(group ? [group] : [])];
    if (kept.length) hooks[event] = kept;
    else delete hooks[event];
  }
}

/** Han's entries in Claude Code's other settings files, which install does not edit. */
function elsewhere(o: PluginHooksInstall, takeOver: boolean): string[] {
  const notes: string[] = [];
  for (const file of claudeSettingsFiles(o.cwd, o.env)) {
    if (file === o.settingsFile || !existsSync(file)) continue;
    let hooks: unknown;
    try {
      hooks = JSON.parse(readFileSync(file, 'utf8'))?.hooks;
    } catch {
      continue; // Claude Code reports its own unreadable settings
    }
    if (!hooks || typeof hooks !== 'object') continue;
    const han = Object.values(hooks as Json).flatMap((g) => (Array.isArray(g) ? commandsOf(g) : []));
    const found = han.filter((c) => hanCommandOf(c));
    if (found.length)
      notes.push(
        `${file} has Han's ${found.map((c) => `\`${c}\``).join(', ')}; install edits only ${o.settingsFile}${takeOver ? `, and with ${HAN_OFF}=1 those exit at once` : ''}: remove them there to stop Claude Code starting them.`,
      );
  }
  return notes;
}

/**
 * Uninstall's part: take out every `hook dispatch` entry, and put Han's entries back as install found them. When an
 * event's hooks changed since, Han's groups are put back first in its list (where Han puts them) and a note says so.
 */
export function uninstallPluginHooks(
  settings: Json,
  settingsFile: string,
  recordPath: string,
  ours: (command: unknown) => boolean,
): string[] {
  const notes: string[] = [];
  const hooks: Json | undefined = settings.hooks;
  const record = readRecord(recordPath, settingsFile);
  if (hooks && typeof hooks === 'object')
    for (const [event, groups] of Object.entries(hooks)) {
      if (!Array.isArray(groups)) continue;
      const kept = withoutEntries(groups, isDispatch);
      if (kept.length === groups.length && isDeepStrictEqual(kept, groups)) continue;
      if (kept.length) hooks[event] = kept;
      else delete hooks[event];
    }
  if (!record) return notes;
  const restored: Json = settings.hooks ?? {};
  const putBack: string[] = [];
  for (const [event, { before, after }] of Object.entries(record.hooks)) {
    const now: Json[] = withoutEntries(Array.isArray(restored[event]) ? restored[event] : [], ours);
    if (isDeepStrictEqual(now, after)) {
      restored[event] = before;
      putBack.push(...commandsOf(before).filter((c) => hanCommandOf(c)));
      continue;
    }
    const present = new Set(commandsOf(now));
    const back = before
      .map((g) => ({ ...g, hooks: (g.hooks ?? []).filter((h: Json) => hanCommandOf(h?.command)) }))
      .filter((g) => g.hooks.length > 0 && !g.hooks.some((h: Json) => present.has(h.command)));
    if (back.length) {
      restored[event] = [...back, ...(restored[event] ?? [])];
      putBack.push(...commandsOf(back));
      notes.push(`hooks.${event} changed since install: Han's entries were put back first in it.`);
    }
  }
  // Restored events where they were: the recorded order first, anything added since after it.
  const keys = [...record.order.filter((k) => k in restored), ...Object.keys(restored)];
  settings.hooks = Object.fromEntries([...new Set(keys)].map((k) => [k, restored[k]]));
  if (record.env && settings.env?.[HAN_OFF] === '1') {
    delete settings.env[HAN_OFF];
    if (Object.keys(settings.env).length === 0) delete settings.env;
    notes.push(`env.${HAN_OFF} removed: Han runs its plugins' hooks again.`);
  }
  if (putBack.length) notes.unshift(`Han's entries put back in ${settingsFile}: ${putBack.join(', ')}.`);
  unlinkSync(recordPath);
  removeEmptyDirs(dirname(recordPath), dirname(dirname(recordPath)));
  return notes;
}
