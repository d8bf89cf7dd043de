// Children never outlive the hub, however it ends. Every child runs in a process group of its own (core/process.ts);
// the reaper is a tiny `sh` started beside the hub in a session of its own, told over a pipe which groups are alive.
// When the hub ends — a clean exit, a crash, `kill -9`, an OOM kill — the kernel closes the pipe, the reaper reads
// end-of-file and signals every group still listed: SIGTERM, then SIGKILL a second later. Nothing here depends on
// the hub's exit handlers running. A fenced server gets bubblewrap's own guard as well (--die-with-parent with a PID
// namespace: core/sandbox.ts). Windows has no process groups or `sh`: children there end with the hub only when it
// exits cleanly (docs/security.md#children-end-with-the-hub).
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';

/**
 * The reaper's program: keep a set of group ids (`+ID` adds, `-ID` removes, one per line); at end-of-file signal what
 * is left. It ignores the signals a terminal or a service manager sends the hub's group, so a Ctrl-C reaches the hub
 * (which stops its children itself) and the reaper stays to catch what the hub could not.
 */
const SCRIPT = `trap '' INT TERM HUP QUIT PIPE
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups\${line#+} " ;;
    -*) g=\${line#-}
        case $groups in *" $g "*) groups="\${groups%% $g *} \${groups#* $g }" ;; esac ;;
  esac
done
[ "$groups" = ' ' ] && exit 0
for g in $groups; do kill -TERM -"$g" 2>/dev/null; done
sleep 1
for g in $groups; do kill -KILL -"$g" 2>/dev/null; done
`;

let reaper: ChildProcess | undefined;
let unavailable = process.platform === 'win32';

function start(): ChildProcess | undefined {
  if (reaper || unavailable) return reaper;
  try {
    // node:child_process, not core/process.ts: the reaper is the one child that must outlive the hub.
    const child = spawn('/bin/sh', ['-c', SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', () => {
      unavailable = true;
      reaper = undefined;
    });
    // The reaper must not keep the hub alive: its pipe and the process are unreferenced.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    child.stdin?.on('error', () => {});
    reaper = child;
    return child;
  } catch {
    unavailable = true;
    return undefined;
  }
}

/** List a process group the reaper signals if the hub ends while it lives. */
export function trackGroup(pgid: number | undefined): void {
  if (!pgid) return;
  start()?.stdin?.write(`+${pgid}\n`);
}

/** The group has been killed or has ended: drop it, so a recycled id is never signalled. */
export function untrackGroup(pgid: number | undefined): void {
  if (!pgid || !reaper) return;
  reaper.stdin?.write(`-${pgid}\n`);
}

/** The reaper's pid (tests check it runs; `switchboard doctor`-style reports may show it). */
export function reaperPid(): number | undefined {
  return reaper?.pid;
}
