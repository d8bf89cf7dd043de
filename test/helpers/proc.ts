// Test helpers for child-process trees: whether a pid is still running, and the pid a fixture wrote to a file.
import { readFileSync } from 'node:fs';
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
