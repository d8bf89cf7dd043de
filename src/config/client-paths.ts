// Where each coding agent keeps its MCP configuration, in one place: `mcp import` and `init` read these files,
// `install`/`uninstall` write them.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The user's home as the agents see it: `$HOME` first (tests and sandboxes point it elsewhere). */
export function userHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME || homedir();
}

/** Codex's home: `$CODEX_HOME`, else `~/.codex` (Codex's own rule). */
export function codexHome(env: NodeJS.ProcessEnv = process.env, home = userHome(env)): string {
  return env.CODEX_HOME || join(home, '.codex');
}

/** Codex's config for a scope: `<codex home>/config.toml`, or `.codex/config.toml` in the project (trusted projects only). */
export function codexConfigFile(scope: 'project' | 'user', cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return scope === 'user' ? join(codexHome(env), 'config.toml') : join(cwd, '.codex', 'config.toml');
}

/** Gemini CLI's settings for a scope: `.gemini/settings.json` in the project or `~/.gemini/settings.json`. */
export function geminiSettingsFile(
  scope: 'project' | 'user',
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return join(scope === 'user' ? userHome(env) : cwd, '.gemini', 'settings.json');
}

/** Meerkat's MCP servers for a scope: `.rkat/mcp.toml` in the project or `~/.rkat/mcp.toml`. */
export function meerkatMcpFile(scope: 'project' | 'user', cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(scope === 'user' ? userHome(env) : cwd, '.rkat', 'mcp.toml');
}
