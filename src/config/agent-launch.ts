// How a coding agent starts Switchboard: the command every `switchboard install <agent>` and `init` writes, the
// lines the banner prints, and the test for "this MCP server entry is Switchboard itself" (never imported as an
// upstream of itself). By default the command is the running install's own launcher by absolute path, so an agent
// starts the version the user installed without npx, without the network, and whether or not the package is on the
// registry; `--npx` writes the package-name form instead, for a config file a team shares (docs/decisions.md,
// "The command install writes").
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/module-loader.ts';

/** `installed`: this install's launcher by absolute path (the default); `npx`: `npx -y switchboard-mcp`. */
export type LaunchForm = 'installed' | 'npx';

/** The registry form: what `--npx` writes. */
const NPX = { command: 'npx', args: ['-y', 'switchboard-mcp'] } as const;

/** The launcher of the running install: bin/switchboard.js, its real path (a global install links to it). */
export function installedEntry(root: string | undefined = packageRoot()): string {
  if (!root) throw new Error('Switchboard cannot find its own package folder (package.json named switchboard-mcp)');
  const entry = join(root, 'bin', 'switchboard.js');
  try {
    return realpathSync(entry);
  } catch {
    return entry;
  }
}

/**
 * The command that runs Switchboard, as a program and its first words. POSIX: the launcher itself (a shell script
 * that starts `node` on PATH, from the startup snapshot for `serve`). Windows has no `sh` for it: `node` by its
 * absolute path with the launcher as its script.
 *
 * @example
 * launcher() // { command: '/usr/lib/node_modules/switchboard-mcp/bin/switchboard.js', args: [] }
 * launcher('npx') // { command: 'npx', args: ['-y', 'switchboard-mcp'] }
 */
export function launcher(form: LaunchForm = 'installed'): { command: string; args: string[] } {
  if (form === 'npx') return { command: NPX.command, args: [...NPX.args] };
  const entry = installedEntry();
  return process.platform === 'win32' ? { command: process.execPath, args: [entry] } : { command: entry, args: [] };
}

/** The stdio server entry an install writes: `serve`, or `serve --profile NAME` for a profile's tool set. */
export function serveEntry(profile?: string, form: LaunchForm = 'installed'): { command: string; args: string[] } {
  const { command, args } = launcher(form);
  return { command, args: [...args, 'serve', ...(profile ? ['--profile', profile] : [])] };
}

/** A word for a POSIX shell command line: as it is when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command line that runs `switchboard <words…>` (hook commands in Claude Code's settings run through a shell).
 *
 * @example
 * commandLine(['hook', 'pre-tool-use'], 'npx') // 'npx -y switchboard-mcp hook pre-tool-use'
 */
export function commandLine(words: readonly string[], form: LaunchForm = 'installed'): string {
  const { command, args } = launcher(form);
  return [command, ...args, ...words].map(shellWord).join(' ');
}

const OURS = /^(switchboard|switchboard-mcp)(@[^/\s]*)?$|(^|[/\\])bin[/\\]switchboard(\.js)?$/;

/** Whether `word` names Switchboard's command (package name, installed command or launcher path). */
function isOurCommand(word: string): boolean {
  return OURS.test(word);
}

/**
 * Whether a stdio server entry starts Switchboard's own `serve` (what an install wrote, or a hand-written
 * `switchboard serve` / `node …/bin/switchboard.js serve`): importing it would make Switchboard its own upstream.
 */
export function isSwitchboardItself(entry: { command?: unknown; args?: unknown }): boolean {
  if (typeof entry.command !== 'string') return false;
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args.map(String) : [])];
  const at = words.findIndex(isOurCommand);
  return at >= 0 && words.slice(at + 1).includes('serve');
}

/** The words of a command line as `shellWord` writes them (plain, or in single quotes with `'\\''` inside). */
function wordsOf(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] ?? m[2]).replaceAll(`'\\''`, "'"));
}

/**
 * Whether a hook command line runs `switchboard <words…>` in any form an install ever wrote (package name through
 * npx, the installed command, a launcher path, quoted or not): install replaces it, uninstall removes it.
 *
 * @example
 * runsSwitchboard('npx -y switchboard-mcp hook pre-tool-use', ['hook', 'pre-tool-use']) // true
 */
export function runsSwitchboard(line: unknown, words: readonly string[]): boolean {
  if (typeof line !== 'string') return false;
  const all = wordsOf(line);
  const head = all.slice(0, all.length - words.length);
  return head.length > 0 && all.slice(head.length).join(' ') === words.join(' ') && isOurCommand(head.at(-1) as string);
}
