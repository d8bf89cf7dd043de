// "Which project and store is this acting on?": said on stderr before a command that reads or writes a project,
// when that is not the obvious one — the project was named with --cwd (not the current directory), or the folder
// has no .switchboard/ yet (the command would start a new, empty store there, not the one a server elsewhere uses).
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { colour } from './output.ts';

/** The store a project's commands open, for people: the SQLite file, or the Redis server (no credentials). */
export function storeLabel(cwd: string, store: { kind: string; path: string; url: string; prefix: string }): string {
  if (store.kind === 'redis') {
    const url = new URL(store.url);
    url.username = '';
    url.password = '';
    return `Redis ${url.origin}, keys ${store.prefix}*`;
  }
  return isAbsolute(store.path) ? store.path : join(cwd, store.path);
}

/** The line to say before acting on `cwd`, or undefined when the current directory is plainly the project. */
export function actingOnLine(cwd: string, here = process.cwd(), env = process.env): string | undefined {
  const dir = resolve(cwd);
  const fresh = !existsSync(join(dir, '.switchboard'));
  if (dir === resolve(here) && !fresh) return undefined;
  let store: string;
  try {
    store = storeLabel(dir, loadConfig(dir, env).config.store);
  } catch {
    // An invalid configuration is the command's to report, with its file and key.
    return undefined;
  }
  const where = dir === resolve(here) ? dir : `${dir} (${relative(here, dir) || '.'} from here)`;
  return `acting on project ${where}, store ${store}${fresh ? ' — no .switchboard/ here yet, so a new, empty project (meant another? pass --cwd DIR)' : ''}`;
}

export function sayActingOn(cwd: string): void {
  const line = actingOnLine(cwd);
  if (line) process.stderr.write(`${colour('stderr').dim(`switchboard: ${line}`)}\n`);
}
