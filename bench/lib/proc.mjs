// Process and machine facts from /proc: a child's CPU time and memory, the machine's CPU, cores and memory.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

const CLK_TCK = 100; // USER_HZ on Linux; /proc/<pid>/stat counts CPU time in these ticks.

/** CPU time (user + system, all threads) of a process in milliseconds, from /proc/<pid>/stat. */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / CLK_TCK;
}

/** Resident memory of a process in MB: current (VmRSS) and peak (VmHWM), from /proc/<pid>/status. */
export function memMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** The machine, for the record. */
export function machine() {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? model;
  } catch {}
  let memGb = totalmem() / 2 ** 30;
  try {
    memGb = Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))[1]) / 2 ** 20;
  } catch {}
  return {
    cpu: model,
    cores: cpus().length,
    memGb: Math.round(memGb * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

/**
 * CPU time of a process in ms, split into its main thread and all its other threads (a worker, V8's helpers),
 * from /proc/<pid>/task/<tid>/stat: the main thread's tid is the pid.
 */
export function threadCpuMs(pid) {
  let main = 0;
  let other = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
    if (Number(tid) === pid) main += ms;
    else other += ms;
  }
  return { main, other };
}
