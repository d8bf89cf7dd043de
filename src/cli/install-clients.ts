// `switchboard install|uninstall codex|gemini [--scope project|user]`: the agent's own config gets one MCP server
// entry that starts Switchboard — Codex `[mcp_servers.switchboard]` in config.toml, Gemini CLI
// `mcpServers.switchboard` in settings.json. Every other byte of those files stays as the user wrote it; uninstall
// removes exactly the entry, and the file and folder too when install created them (nothing else is left).
import { dirname, join } from 'node:path';
import { type LaunchForm, serveEntry } from '../config/agent-launch.ts';
import { codexConfigFile, codexHome, geminiSettingsFile } from '../config/client-paths.ts';
import { readText, saveOrDelete, writeText } from './agent-files.ts';
import { isEmptyDocument, removeMember, setMember } from './jsonc-edit.ts';
import { CliError } from './output.ts';
import { removeTable, setTable } from './toml-table-edit.ts';

export type FileAgent = 'codex' | 'gemini';
export const FILE_AGENTS: readonly FileAgent[] = ['codex', 'gemini'];
type Scope = 'project' | 'user';

interface Target {
  name: string;
  file: string;
  /** Where the entry sits in the file, for messages. */
  where: string;
  set(text: string): string;
  remove(text: string): string;
  isEmpty(text: string): boolean;
  notes: string[];
}

/**
 * Codex's entry: `required = true`, or `codex exec` goes on without the server whenever it is not up at once (6 of
 * 8 runs with three servers had no Switchboard tools); `startup_timeout_sec` leaves room for a first start, which
 * waits for the user's other servers to list their tools (docs/decisions.md, "Codex waits for Switchboard").
 */
export const CODEX_STARTUP_TIMEOUT_SEC = 60;

function target(agent: FileAgent, scope: Scope, cwd: string, profile?: string, form?: LaunchForm): Target {
  const entry = serveEntry(profile, form);
  if (agent === 'codex') {
    const codexEntry = { ...entry, required: true, startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SEC };
    const file = codexConfigFile(scope, cwd);
    const notes = [
      scope === 'project'
        ? `Codex reads .codex/config.toml only in a trusted project: trust this folder when Codex asks, or add [projects."${cwd}"] trust_level = "trusted" to ${join(codexHome(), 'config.toml')}.`
        : 'Codex starts it in the folder you run codex in, and Switchboard serves that folder (its .switchboard/): start codex at the project root.',
    ];
    return {
      name: 'Codex',
      file,
      where: '[mcp_servers.switchboard]',
      set: (text) => setTable(text, ['mcp_servers', 'switchboard'], codexEntry, file),
      remove: (text) => removeTable(text, ['mcp_servers', 'switchboard'], file),
      isEmpty: (text) => text.trim() === '',
      notes,
    };
  }
  const file = geminiSettingsFile(scope, cwd);
  return {
    name: 'Gemini CLI',
    file,
    where: 'mcpServers.switchboard',
    set: (text) => setMember(text, ['mcpServers'], 'switchboard', entry, file),
    remove: (text) => removeMember(text, ['mcpServers'], 'switchboard', file),
    isEmpty: isEmptyDocument,
    notes:
      scope === 'user'
        ? [
            'Gemini CLI starts it in the folder you run gemini in, and Switchboard serves that folder: start gemini at the project root.',
          ]
        : [],
  };
}

function parseScope(scope: string): Scope {
  if (scope === 'project' || scope === 'user') return scope;
  throw new CliError(`--scope must be project or user, got '${scope}'.`, 2);
}

export function installFileAgent(
  agent: FileAgent,
  opts: { cwd: string; scope: string; profile?: string; npx?: boolean },
): void {
  const form: LaunchForm = opts.npx ? 'npx' : 'installed';
  const t = target(agent, parseScope(opts.scope), opts.cwd, opts.profile, form);
  const entry = serveEntry(opts.profile, form);
  const before = readText(t.file);
  const changed = writeText(t.file, before, t.set(before));
  process.stdout.write(
    `${changed ? 'Installed' : 'Already installed:'} Switchboard for ${t.name} (${opts.scope} scope): ${t.where} in ${t.file}\n` +
      `  it runs: ${entry.command} ${entry.args.join(' ')}\n` +
      t.notes.map((n) => `  note: ${n}\n`).join(''),
  );
}

export function uninstallFileAgent(agent: FileAgent, opts: { cwd: string; scope: string }): void {
  const t = target(agent, parseScope(opts.scope), opts.cwd);
  const before = readText(t.file);
  const outcome = saveOrDelete(t.file, before, t.remove(before), t.isEmpty, dirname(dirname(t.file)));
  process.stdout.write(
    outcome === 'unchanged'
      ? `Switchboard is not installed for ${t.name} (${opts.scope} scope): no ${t.where} in ${t.file}.\n`
      : `Removed Switchboard from ${t.name} (${opts.scope} scope): ${outcome === 'deleted' ? `deleted ${t.file}, nothing else was in it` : `${t.where} in ${t.file}`}.\n`,
  );
}
