// Agent sessions as files, the embedded layout (every store but Redis keeps its sessions this way): under
// `<project>/.switchboard/sessions/`, `<session>.jsonl` (the transcript, one event a line, readable with `tail -f`),
// `<session>.meta.json`, and `<session>.lock` while a turn runs.
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { SwitchboardError } from '../../core/errors.ts';
import { processAlive } from '../../core/process.ts';
import {
  type AgentSessionRecord,
  type AgentSessionStore,
  type AgentTranscriptEvent,
  type AgentTranscriptPage,
  type AgentTurnLock,
  sessionBusy,
  sessionLockLost,
  sessionMissing,
  sessionRunning,
  sessionTaken,
} from '../contract.ts';
import { checkTtl, sessionMetaJson, transcriptLines } from '../records/agent-sessions.ts';
import { checkNonEmpty } from '../records/common.ts';

/** Why a session name cannot be used, or undefined when it can (the agents room's rule, `session-name.ts`). */
export type SessionNameRule = (name: string) => string | undefined;

/**
 * The embedded layout of agent sessions (every store but Redis): files users can read and `tail -f`. Meta writes
 * are atomic (temp file + rename); the transcript is append-only, one JSON event a line; the turn lock is an
 * exclusive file holding the pid (and start time) of the process running the turn, so liveness is exact on the one
 * machine these files live on, and a lease length does not apply.
 */
export class AgentSessionFiles<M extends AgentSessionRecord = AgentSessionRecord> implements AgentSessionStore<M> {
  readonly dir: string;
  /** Transcripts a turn of this process appends to: one descriptor per turn (closed when it lets go of the lock). */
  private readonly turns = new Map<string, { holder: string; fd: number }>();
  /** `nameRule`: names become file names, so every name passes it first (it must keep each path in the folder). */
  constructor(
    projectDir: string,
    private readonly nameRule: SessionNameRule,
  ) {
    this.dir = join(projectDir, '.switchboard', 'sessions');
  }

  transcriptPath(name: string): string {
    return join(this.dir, `${name}.jsonl`);
  }
  metaPath(name: string): string {
    return join(this.dir, `${name}.meta.json`);
  }
  private lockPath(name: string): string {
    return join(this.dir, `${name}.lock`);
  }

  where(name: string): string {
    return this.transcriptPath(name);
  }

  async get(name: string): Promise<M | undefined> {
    this.checkName(name);
    let text: string;
    try {
      text = readFileSync(this.metaPath(name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new SwitchboardError('INTERNAL', `${this.metaPath(name)} cannot be read: ${(err as Error).message}`);
    }
    try {
      return JSON.parse(text) as M;
    } catch (err) {
      throw new SwitchboardError('INTERNAL', `${this.metaPath(name)} is not valid JSON: ${(err as Error).message}`);
    }
  }

  /** Write the meta atomically: readers see the old or the new file, never half of one. */
  async put(meta: M, opts: { holder?: string; release?: boolean } = {}): Promise<void> {
    const { name, json } = sessionMetaJson(meta, 2);
    this.checkName(name);
    if (!existsSync(this.metaPath(name))) throw sessionMissing(name);
    this.fence(name, opts.holder);
    this.writeMeta(name, json);
    // Meta first, then the lock: a reader that finds no lock finds the new meta (readers look at the lock first).
    if (opts.release && opts.holder !== undefined) {
      this.endTurn(name);
      rmSync(this.lockPath(name), { force: true });
    }
  }

  private writeMeta(name: string, json: string): void {
    mkdirSync(this.dir, { recursive: true });
    const target = this.metaPath(name);
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, `${json}\n`);
    renameSync(tmp, target);
  }

  /** Create the files of a new session; CONFLICT when the name is taken (checked by an exclusive create). */
  async create(meta: M): Promise<void> {
    const { name, json } = sessionMetaJson(meta, 2);
    this.checkName(name);
    mkdirSync(this.dir, { recursive: true });
    try {
      closeSync(openSync(this.transcriptPath(name), 'wx'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' || existsSync(this.metaPath(name))) throw sessionTaken(name);
      throw err;
    }
    this.writeMeta(name, json);
  }

  /**
   * Append events as JSON lines in one write. A line is never split by us; a crash in the middle of a write can
   * leave a torn last line, which readers skip and which is closed with a newline here, before the next event.
   */
  async append(name: string, events: readonly AgentTranscriptEvent[], opts: { holder?: string } = {}): Promise<void> {
    const lines = transcriptLines(events);
    this.checkName(name);
    const text = `${lines.join('\n')}\n`;
    // A lock file cannot be taken from a live process, so the turn that checked it once writes on its descriptor.
    const turn = this.turns.get(name);
    if (turn && turn.holder === opts.holder) {
      if (lines.length) writeSync(turn.fd, text);
      return;
    }
    if (!existsSync(this.metaPath(name))) throw sessionMissing(name);
    this.fence(name, opts.holder);
    if (!lines.length) return;
    const fd = this.openTranscript(name);
    if (opts.holder !== undefined) {
      this.turns.set(name, { holder: opts.holder, fd });
      writeSync(fd, text);
      return;
    }
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
  }

  /** Open the transcript for appends, first closing a torn last line (a crash mid-write) with a newline. */
  private openTranscript(name: string): number {
    const fd = openSync(this.transcriptPath(name), 'a+');
    try {
      const size = fstatSync(fd).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) writeSync(fd, '\n');
      }
      return fd;
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** Close the descriptor of a turn that ends here. */
  private endTurn(name: string): void {
    const turn = this.turns.get(name);
    if (!turn) return;
    this.turns.delete(name);
    closeSync(turn.fd);
  }

  /**
   * Transcript events from byte offset `from`. Complete lines that do not parse (a torn write closed since) are
   * skipped and counted; an unfinished last line is left for the next read (`next` stops before it).
   */
  async transcript(name: string, from = 0): Promise<AgentTranscriptPage> {
    this.checkName(name);
    let text = '';
    try {
      const fd = openSync(this.transcriptPath(name), 'r');
      try {
        const size = fstatSync(fd).size;
        if (size > from) {
          const buf = Buffer.alloc(size - from);
          readSync(fd, buf, 0, buf.length, from);
          text = buf.toString('utf8');
        }
      } finally {
        closeSync(fd);
      }
    } catch {
      return { events: [], skipped: 0, next: from };
    }
    const end = text.lastIndexOf('\n') + 1;
    const events: AgentTranscriptEvent[] = [];
    let skipped = 0;
    for (const line of text.slice(0, end).split('\n')) {
      if (!line) continue;
      try {
        events.push(JSON.parse(line));
      } catch {
        skipped++;
      }
    }
    return { events, skipped, next: from + Buffer.byteLength(text.slice(0, end)) };
  }

  /** Every session name with a meta file, sorted. */
  async names(): Promise<string[]> {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.meta.json'))
      .map((f) => f.slice(0, -'.meta.json'.length))
      .sort();
  }

  /**
   * Take the session's turn lock (an exclusive file holding our pid, start time and `owner`). A lock whose process
   * is dead is stale (a crash) and is taken over; a live one means another turn runs: CONFLICT.
   */
  async lock(name: string, owner: string, ttlMs: number): Promise<void> {
    this.checkName(name);
    checkNonEmpty(owner, 'owner');
    checkTtl(ttlMs); // refused alike everywhere, though a file lock lives as long as its process
    mkdirSync(this.dir, { recursive: true });
    const path = this.lockPath(name);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        writeSync(fd, lockText(process.pid, owner));
        closeSync(fd);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        if ((await this.lockOwner(name))?.alive) break;
        rmSync(path, { force: true });
      }
    }
    throw sessionBusy(name);
  }

  /** The lock lives as long as its process: nothing to extend, only whether it is still `owner`'s. */
  async renew(name: string, owner: string, _ttlMs: number): Promise<boolean> {
    return (await this.lockOwner(name))?.owner === owner;
  }

  async unlock(name: string, owner: string): Promise<void> {
    if (this.turns.get(name)?.holder === owner) this.endTurn(name);
    if ((await this.lockOwner(name))?.owner === owner) rmSync(this.lockPath(name), { force: true });
  }

  /** Who holds the turn lock: a live process (a turn runs), or a dead one (a crash left the file). */
  async lockOwner(name: string): Promise<AgentTurnLock | undefined> {
    return this.lockOwnerNow(this.checkName(name));
  }

  private lockOwnerNow(name: string): AgentTurnLock | undefined {
    const [pidText, started, owner] = safeRead(this.lockPath(name)).split(' ');
    const pid = Number(pidText);
    if (!pid) return undefined;
    // The start time guards against a reused pid: a crashed turn's pid may belong to another process by now.
    const alive = processAlive(pid) && (started === undefined || started === '-' || processStart(pid) === started);
    return { owner: owner ?? `pid:${pid}`, alive, holder: `process ${pid}` };
  }

  /** A write fenced by `holder` happens only while `holder` holds the lock. */
  private fence(name: string, holder: string | undefined): void {
    if (holder === undefined) return;
    // Whose lock it is, not whether its process lives (the writer asking is that process): no /proc read.
    const [pid, , owner] = safeRead(this.lockPath(name)).split(' ');
    if ((owner ?? `pid:${pid}`) !== holder) throw sessionLockLost(name, `owner ${holder}`);
  }

  /** A session name as the files take it: the name rule, which also keeps every path inside the folder. */
  private checkName(name: string): string {
    const problem = typeof name === 'string' ? this.nameRule(name) : 'Session name must be a string';
    if (problem) throw new SwitchboardError('INVALID_INPUT', `session_name: ${problem}`);
    return name;
  }

  async remove(name: string): Promise<boolean> {
    this.checkName(name);
    if (this.lockOwnerNow(name)?.alive) throw sessionRunning(name);
    const existed = existsSync(this.metaPath(name));
    this.endTurn(name);
    for (const p of [this.transcriptPath(name), this.metaPath(name), this.lockPath(name)]) rmSync(p, { force: true });
    return existed;
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The lock file's text: the pid, on Linux the process start time (clock ticks since boot; `-` elsewhere), the owner. */
function lockText(pid: number, owner: string): string {
  return `${pid} ${processStart(pid) ?? '-'} ${owner}`;
}

/** A process's start time from /proc/<pid>/stat (field 22), or undefined where /proc is not there. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}
