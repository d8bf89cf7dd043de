// Test helpers for child-process trees: whether a pid is still running, and the pid a fixture wrote to a file.
import { readdirSync, readFileSync } from 'node:fs';
import { until } from './until.ts';

/** Running (a killed process whose parent died first may linger as a zombie until PID 1 reaps it). */
export function alive(pid: number): boolean {
  try {
    const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** The pid in `file`, or undefined while the fixture has not written it. */
function readPid(file: string): number | undefined {
  try {
    return Number(readFileSync(file, 'utf8').trim()) || undefined;
  } catch {
    return undefined; // not written yet
  }
}

/** Wait (up to 5 s) for a fixture to write a pid into `file`. */
export function pidFrom(file: string): Promise<number> {
  return until(() => readPid(file), { timeoutMs: 5_000, what: `a pid in ${file}` });
}

/** Wait (up to 2 s) for a pid to stop running; true when it did. */
export async function gone(pid: number): Promise<boolean> {
  return until(() => !alive(pid), { timeoutMs: 2_000 }).then(
    () => true,
    () => false,
  );
}

/** Field `index` of /proc/PID/stat after the command name (0: state, 1: ppid, 2: pgid), or undefined when gone. */
function statField(pid: number, index: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[index];
  } catch {
    return undefined;
  }
}

/** Every running process below `root` (children, theirs, …), whatever group or session they moved to. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statField(Number(entry), 1));
    if (!ppid) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (alive(child)) out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

/** `pid state pgid cmdline` of each pid, to say what survived when a wait fails. */
export function describeProcesses(pids: number[]): string {
  return pids
    .map((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
        return `${pid} state=${statField(pid, 0)} pgid=${statField(pid, 2)} ${cmd}`;
      } catch {
        return `${pid} gone`;
      }
    })
    .join('; ');
}

/** The command line of a running process ('' once it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}
