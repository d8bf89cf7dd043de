// The catalog benchmark's workspace: a copy of the demo workspace (examples/workspace) with four upstream servers
// from the registry behind it — the reference filesystem, memory and everything servers and a GitLab server
// (118 tools) — all devDependencies, started offline over stdio. Shared by bench/catalog.mjs and the quality test.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const modulePath = (path) => join(ROOT, 'node_modules', path);

/** The upstream servers, as `[[servers]]` entries. GitLab is never reached: listing its tools needs no network. */
export const UPSTREAMS = [
  { name: 'everything', args: [modulePath('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] },
  { name: 'filesystem', args: [modulePath('@modelcontextprotocol/server-filesystem/dist/index.js'), '{dir}'] },
  {
    name: 'memory',
    args: [modulePath('@modelcontextprotocol/server-memory/dist/index.js')],
    env: { MEMORY_FILE_PATH: '{dir}/.switchboard/memory.jsonl' },
  },
  {
    name: 'gitlab',
    args: [modulePath('@zereight/mcp-gitlab/build/index.js')],
    // A placeholder token and an address nothing answers on: the server starts and lists without calling GitLab.
    env: {
      GITLAB_PERSONAL_ACCESS_TOKEN: 'offline-placeholder',
      GITLAB_API_URL: 'http://127.0.0.1:9/api/v4',
      GITLAB_DISABLE_VERSION_CHECK: 'true',
    },
  },
];

const toml = (value) => JSON.stringify(value);

/**
 * A fresh copy of the demo workspace in a temp folder, its config's `[[servers]]` replaced by {@link UPSTREAMS}
 * and `extra` (TOML) appended. Returns the folder.
 */
export function catalogWorkspace(extra = '') {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-catalog-'));
  cpSync(join(ROOT, 'examples/workspace'), dir, {
    recursive: true,
    filter: (src) => !/state\.db/.test(src) && !src.includes('node_modules'),
  });
  mkdirSync(join(dir, '.home'), { recursive: true });
  const file = join(dir, '.switchboard/config.toml');
  // The first list waits for every server (GitLab takes seconds to start on a busy machine).
  const base = readFileSync(file, 'utf8')
    .split('[[servers]]')[0]
    .replace('[server]\n', '[server]\nfirst_list_wait_ms = 60000\n');
  const servers = UPSTREAMS.map((s) => {
    const fill = (v) => v.replaceAll('{dir}', dir);
    const env = s.env
      ? `env = { ${Object.entries(s.env)
          .map(([k, v]) => `${k} = ${toml(fill(v))}`)
          .join(', ')} }\n`
      : '';
    return `[[servers]]\nname = ${toml(s.name)}\ncommand = ${toml(process.execPath)}\nargs = ${toml(s.args.map(fill))}\n${env}`;
  }).join('\n');
  writeFileSync(file, `${base}\n${servers}\n${extra}`);
  return dir;
}
