// Test helpers for child-process trees: whether a pid is still running, and the pid a fixture wrote to a file.
import { readFileSync } from 'node:fs';

/** Running (a killed process whose parent died first may linger as a zombie until PID 1 reaps it). */
export function alive(pid: number): boolean {
  try {
    const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Wait (up to 5 s) for a fixture to write a pid into `file`. */
export async function pidFrom(file: string): Promise<number> {
  for (let i = 0; i < 250; i++) {
    try {
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (pid) return pid;
    } catch {
      // not written yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no pid in ${file}`);
}

/** Wait (up to 2 s) for a pid to stop running; true when it did. */
export async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}
