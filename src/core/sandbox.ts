// The fence a stdio server runs in (issue 32 §1; docs/security.md#fenced-servers): bubblewrap, from the system's
// packages, given an allow-list. Nothing of the machine is visible unless named here: the system's programs and
// libraries, the folders on PATH and the server's own package (a path on its command line, with its package)
// read-only; its working directory read-write with the hub's own state hidden inside it; a private /tmp, and a HOME
// of its own that persists between its runs (its npm and uv caches live there, apart from the user's). Everything
// else — ~/.ssh, ~/.aws, other projects, /run's sockets — does not exist for it. Without the network, it is alone in
// a network namespace with only its own loopback. --die-with-parent and a PID namespace end the tree with the hub.
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type Argv, argv } from './argv.ts';
import { isInside } from './confine.ts';
import { SwitchboardError } from './errors.ts';
import { runProcess } from './process.ts';

/** What one server may reach, every path absolute (config paths are resolved in sources/upstream/resolve.ts). */
export interface Fence {
  /** Extra paths readable (not writable). */
  read: string[];
  /** Extra paths readable and writable. */
  write: string[];
  network: boolean;
  /** Refuse to start unfenced. */
  required: boolean;
  /** Folders of the hub's own state (configuration, store, keys) to hide even inside a bound path. */
  hide: string[];
  /** Folders that decide what the hub runs (plugin and handler paths): readable, never writable. */
  protect: string[];
  /** The server's private HOME on the host (created when missing), mounted at the user's HOME path. */
  home: string;
}

/** The system folders every fenced program reads (those that exist): programs, libraries, certificates, locale. */
const SYSTEM_READ = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix', '/snap'];

/** The package to install per system, for the message that names it. */
export const SANDBOX_PACKAGE =
  'bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap)';

export type SandboxTool = { ok: true; command: string } | { ok: false; why: string };

let probed: Promise<SandboxTool> | undefined;

/**
 * Whether bubblewrap can fence a process here: present on PATH and allowed to make its namespaces (a container or
 * a kernel that forbids unprivileged user namespaces refuses). Tried once per process with the options fences use.
 */
export function sandboxTool(): Promise<SandboxTool> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<SandboxTool> {
  if (process.platform !== 'linux')
    return {
      ok: false,
      why: `no fence on ${process.platform}: bubblewrap is Linux-only (docs/security.md#fenced-servers says what is protected here)`,
    };
  try {
    const r = await runProcess(
      'bwrap',
      argv()
        .flag('--ro-bind')
        .nonOption('/')
        .nonOption('/')
        .flag('--unshare-pid')
        .flag('--die-with-parent')
        .flag('--')
        .nonOption('true')
        .build(),
      { signal: AbortSignal.timeout(10_000) },
    );
    if (r.exitCode === 0) return { ok: true, command: 'bwrap' };
    return {
      ok: false,
      why: `bubblewrap is installed but cannot make a fence here: ${r.stderr.trim() || `exit ${r.exitCode}`}`,
    };
  } catch (err) {
    const missing = /ENOENT|not found/i.test((err as Error).message);
    return {
      ok: false,
      why: missing ? `bubblewrap is not installed; install ${SANDBOX_PACKAGE}` : (err as Error).message,
    };
  }
}

/** Forget the probe (tests that change PATH). */
export function resetSandboxProbe(): void {
  probed = undefined;
}

/**
 * The folder a path's program lives in with its dependencies: inside a `node_modules`, that whole folder (Node finds
 * a package's dependencies hoisted beside it); else the nearest package root above it, or its own folder.
 */
function packageRootOf(path: string): string {
  const at = path.indexOf('/node_modules/');
  if (at >= 0) return path.slice(0, at + '/node_modules'.length);
  const dir = statSync(path).isDirectory() ? path : dirname(path);
  for (let d = dir; ; d = dirname(d)) {
    if (['package.json', 'pyproject.toml', 'Cargo.toml', 'go.mod'].some((f) => existsSync(join(d, f)))) return d;
    if (dirname(d) === d) break;
  }
  return dir;
}

/** Paths that exist, real (symlinks resolved), without duplicates or paths inside another listed one. */
function realPaths(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    try {
      out.push(realpathSync(p));
    } catch {
      // Missing: nothing to bind.
    }
  }
  return [...new Set(out)];
}

const underSystem = (p: string) => SYSTEM_READ.some((s) => isInside(s, p));

/**
 * The bubblewrap command line that runs `command args` in `cwd` inside `fence`.
 *
 * @example
 * fencedCommand('npx', ['-y', 'pkg'], '/repo', fence, process.env)
 * // { command: 'bwrap', args: ['--die-with-parent', …, '--chdir', '/repo', '--', 'npx', '-y', 'pkg'] }
 */
export function fencedCommand(
  command: string,
  args: readonly string[],
  cwd: string,
  fence: Fence,
  env: Record<string, string | undefined>,
): { command: string; args: Argv } {
  const a = argv()
    .flag('--die-with-parent')
    .flag('--unshare-pid')
    .flag('--unshare-ipc')
    .flag('--unshare-uts')
    .flag('--unshare-cgroup-try')
    // A new session: the server cannot push keystrokes into the terminal the hub was started from (TIOCSTI).
    .flag('--new-session');
  if (!fence.network) a.flag('--unshare-net');
  for (const dir of SYSTEM_READ) a.flag('--ro-bind-try').nonOption(dir).nonOption(dir);
  a.flag('--proc').nonOption('/proc').flag('--dev').nonOption('/dev').flag('--tmpfs').nonOption('/tmp');
  // DNS: /etc/resolv.conf may point into /run (systemd-resolved), which is otherwise not visible.
  if (fence.network) for (const real of realPaths(['/etc/resolv.conf'])) if (!underSystem(real)) bindRo(a, real);
  // Programs on PATH outside the system folders (~/.cargo/bin, nvm's node): each folder itself, never its parent,
  // which may hold credentials (~/.cargo/credentials.toml); node's own prefix (its npm), and the server's own files —
  // the command as found on PATH and any argument that is an existing absolute path — with their package.
  const home = env.HOME;
  const pathDirs = (env.PATH ?? '').split(':').filter((p) => p.startsWith('/'));
  const nodePrefix = dirname(dirname(realPaths([process.execPath])[0] ?? process.execPath));
  const found = command.includes('/') ? command : pathDirs.map((d) => join(d, command)).find((f) => existsSync(f));
  // A path is a word that is absolute or begins with ./ or ../ (relative to the server's folder); other words are not.
  const asPath = (w: string | undefined) =>
    w === undefined ? undefined : w.startsWith('/') ? w : /^\.\.?\//.test(w) ? resolve(cwd, w) : undefined;
  const own = [found, ...args]
    .map(asPath)
    .filter((w): w is string => w !== undefined && existsSync(w))
    .map((w) => packageRootOf(realPaths([w])[0] ?? w));
  // A folder that holds the user's home (or is it) is never bound whole by these rules.
  const safe = (p: string) => p !== '/' && !(home && isInside(p, home));
  mkdirSync(fence.home, { recursive: true });
  if (home) a.flag('--bind').nonOption(fence.home).nonOption(home);
  for (const p of realPaths([...pathDirs, nodePrefix, ...own]).filter(safe)) if (!underSystem(p)) bindRo(a, p);
  for (const p of realPaths(fence.read)) if (!underSystem(p)) bindRo(a, p);
  for (const p of realPaths([cwd, ...fence.write])) a.flag('--bind').nonOption(p).nonOption(p);
  // Inside what is bound: the hub's state is hidden, the folders that decide what it runs are read-only.
  const bound = realPaths([cwd, ...fence.write, ...fence.read, ...own]);
  for (const p of realPaths(fence.protect)) if (bound.some((b) => isInside(b, p))) bindRo(a, p);
  for (const p of realPaths(fence.hide)) if (bound.some((b) => isInside(b, p))) a.flag('--tmpfs').nonOption(p);
  a.flag('--chdir').nonOption(realPaths([cwd])[0] ?? cwd);
  a.flag('--').operator([command, ...args]);
  return { command: 'bwrap', args: a.build() };
}

function bindRo(a: ReturnType<typeof argv>, path: string): void {
  a.flag('--ro-bind').nonOption(path).nonOption(path);
}

/** The error a server whose fence is required gets when there is none to give. */
export function fenceRequired(server: string, why: string): SwitchboardError {
  return new SwitchboardError(
    'UNAVAILABLE',
    `Upstream server '${server}' must run fenced (sandbox.required) but cannot: ${why}. Install ${SANDBOX_PACKAGE}, or set sandbox.required = false to run it unfenced.`,
  );
}
