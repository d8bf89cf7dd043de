// `switchboard init`: write a commented `.switchboard/config.toml` (never over an existing one), import the MCP
// servers other clients have configured, connect the agents found on this machine, and say what comes next.
// Flags settle each question; on a terminal the rest are asked (@clack/prompts); otherwise nothing is imported or
// installed, and the commands that would do it are printed.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import pc from 'picocolors';
import { secretVariablesNote } from '../config/import-secrets.ts';
import { removeFromClientHint } from '../config/import-servers.ts';
import { loadConfig } from '../config/load.ts';
import { addServer, allServers, scopeFile } from '../config/server-entries.ts';
import { SwitchboardError } from '../core/errors.ts';
import { docPath } from './docs-path.ts';
import { type Agent, detectAgents, detectServers, type FoundServer } from './init-detect.ts';
import { type Decision, decideImports, decideInstalls, decideScope, type InitFlags } from './init-plan.ts';
import { configTemplate } from './init-template.ts';
import { AGENTS, install } from './install.ts';
import { CliError } from './output.ts';

const say = (line = '') => process.stdout.write(`${line}\n`);

/** Write the template unless a config is there; either way the effective configuration must load. */
function writeConfig(cwd: string): void {
  const file = scopeFile('project', cwd);
  const shown = relative(cwd, file);
  if (existsSync(file)) say(`${shown} exists; kept as it is (imported servers are added to it).`);
  else {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, configTemplate(), { flag: 'wx' });
    say(`Wrote ${shown} (every setting commented out at its default).`);
  }
  loadConfig(cwd);
}

/** On a terminal: ask with @clack/prompts. Ctrl-C stops init; what was written so far stays. */
async function ask(
  question: string,
  options: Array<{ value: string; label: string; hint?: string }>,
  suggested: string[],
): Promise<string[]> {
  const prompts = await import('@clack/prompts');
  const answer = await prompts.multiselect({ message: question, options, initialValues: suggested, required: false });
  if (prompts.isCancel(answer))
    throw new CliError('init stopped; .switchboard/config.toml is written, nothing else.', 130);
  return answer;
}

async function askScope(): Promise<'project' | 'user'> {
  const prompts = await import('@clack/prompts');
  const answer = await prompts.select({
    message: 'Write the agents’ config for',
    options: [
      { value: 'project' as const, label: 'this project', hint: '.mcp.json, .codex/, .gemini/' },
      { value: 'user' as const, label: 'every project of this user', hint: '~/.claude.json, ~/.codex/, ~/.gemini/' },
    ],
    initialValue: 'project' as const,
  });
  if (prompts.isCancel(answer))
    throw new CliError('init stopped; .switchboard/config.toml is written, nothing else.', 130);
  return answer;
}

const settle = async <T>(d: Decision<T>, asking: () => Promise<T[]>) => (d.ask ? asking() : d.chosen);

/** Add the chosen servers to the project's configuration; answers those that were added. */
function importServers(cwd: string, chosen: FoundServer[]): FoundServer[] {
  const imported: FoundServer[] = [];
  for (const s of chosen) {
    try {
      addServer('project', cwd, s.entry);
      say(`  ${pc.green('imported')} ${s.name}  (from ${s.from}: ${s.file})`);
      imported.push(s);
    } catch (err) {
      if (!(err instanceof SwitchboardError)) throw err;
      say(`  ${pc.yellow('skipped')} ${s.name}: ${err.message}`);
    }
  }
  return imported;
}

export async function init(flags: InitFlags & { cwd: string }): Promise<void> {
  const { cwd } = flags;
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  // Refuse bad flags before anything is written.
  const scopeDecision = decideScope(flags, interactive);
  decideInstalls(flags, false, []);
  decideImports(flags, false, []);

  writeConfig(cwd);

  const { servers, notImported, connected, unreadable } = detectServers(cwd);
  for (const problem of unreadable) say(`${pc.yellow('not read')} ${problem}`);
  const configured = new Map(allServers(cwd).map((s) => [String(s.entry.name), s.scope]));
  const fresh = servers.filter((s) => !configured.has(s.name));
  if (servers.length) {
    say(`\nMCP servers configured in other clients:`);
    for (const s of servers)
      say(
        `  ${s.name}  ${pc.dim(`${s.from}: ${s.file}`)}${configured.has(s.name) ? `  ${pc.dim(`(already in Switchboard, ${configured.get(s.name)} scope; skipped)`)}` : ''}`,
      );
    for (const n of notImported) say(`  ${pc.dim(`${n.name} (${n.from}) not importable: ${n.reason}`)}`);
  } else say('\nNo MCP servers found in Claude Code, Codex, Gemini CLI or Meerkat configuration.');

  const toImport = await settle(decideImports(flags, interactive, fresh), async () => {
    const names = await ask(
      'Import these servers into .switchboard/config.toml?',
      fresh.map((s) => ({ value: s.name, label: s.name, hint: `${s.from}: ${s.file}` })),
      fresh.map((s) => s.name),
    );
    return fresh.filter((s) => names.includes(s.name));
  });
  let imported: FoundServer[] = [];
  if (toImport.length) {
    say(`\nImporting into ${relative(cwd, scopeFile('project', cwd))}:`);
    imported = importServers(cwd, toImport);
    const moved = imported.flatMap((s) => s.secrets);
    for (const line of secretVariablesNote(moved, relative(cwd, scopeFile('project', cwd)))) say(line);
  }

  if (flags.fromRegistry?.length) await addRegistryServers(cwd, flags.fromRegistry);

  const detected = detectAgents(cwd);
  const detectedNames = detected.map((d) => d.agent);
  say(
    detected.length
      ? `\nAgents found: ${detected.map((d) => `${d.agent} (${d.evidence}${(connected as string[]).includes(d.agent) ? '; connected to Switchboard' : ''})`).join(', ')}`
      : '\nNo coding agent found (Claude Code, Codex, Gemini CLI).',
  );
  const toInstall = await settle(
    decideInstalls(flags, interactive, detectedNames),
    async () =>
      (await ask(
        'Connect these agents to Switchboard?',
        AGENTS.map((a) => ({ value: a, label: a, hint: detected.find((d) => d.agent === a)?.evidence ?? 'not found' })),
        detectedNames,
      )) as Agent[],
  );
  const scope = toInstall.length ? (await settle(scopeDecision, async () => [await askScope()]))[0] : 'project';
  for (const agent of toInstall) {
    say();
    await install(agent, { cwd, scope, npx: flags.npx });
  }

  const unconnected = detectedNames.filter((a) => !(connected as string[]).includes(a) && !toInstall.includes(a));
  nextSteps({ interactive, fresh, toImport, imported, unconnected });
}

/** `--from-registry`: each added as `mcp add --from-registry` would; one that cannot be is said, and init goes on. */
async function addRegistryServers(cwd: string, specs: string[]): Promise<void> {
  const { addFromRegistry } = await import('./registry.ts');
  say(`\nFrom the MCP registry:`);
  for (const spec of specs)
    try {
      for (const line of await addFromRegistry(spec, { cwd, scope: 'project' })) say(`  ${line}`);
    } catch (err) {
      say(`  ${pc.yellow('not added')} ${spec}: ${(err as Error).message}`);
    }
}

function nextSteps(s: {
  interactive: boolean;
  fresh: FoundServer[];
  toImport: FoundServer[];
  /** Those of `toImport` that were added (a skipped one is not the client's to drop). */
  imported: FoundServer[];
  unconnected: Agent[];
}): void {
  const todo: string[] = [];
  const left = s.fresh.filter((f) => !s.toImport.includes(f));
  for (const from of new Set(left.map((f) => f.from))) todo.push(`switchboard mcp import --from ${from}`);
  for (const agent of s.unconnected) todo.push(`switchboard install ${agent}`);
  say(`\n${pc.bold('Next steps')}`);
  if (todo.length) {
    say(`  Not done${s.interactive ? '' : ' (no terminal to ask on, and no flag said to)'}; to do it later:`);
    for (const t of todo) say(`    ${t}`);
  }
  for (const from of new Set(s.imported.map((f) => f.from))) {
    const names = s.imported.filter((f) => f.from === from).map((f) => f.name);
    say(`  ${removeFromClientHint(from, names)}`);
  }
  say('  Check the servers Switchboard aggregates:  switchboard mcp list --status');
  say('  Start it by hand (agents start it themselves): switchboard serve  (or --http for Streamable HTTP and REST)');
  say(`  Edit .switchboard/config.toml to change a setting; every key is in ${docPath('configuration.md')}`);
}
