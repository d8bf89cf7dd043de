// The scale-out Store: every part of the Store contract on one Redis server, under a key prefix, so several
// Switchboard instances share tasks, instances, events, tokens, the audit log, documents, hook runs and script runs.
// Every write that touches more than one key is one Lua script (atomic on the server): nothing is ever half-written.
import { Redis } from 'ioredis';
import type { BusEvent } from '../core/context.ts';
import { SwitchboardError } from '../core/errors.ts';
import { AuditBatch, type AuditBatchData, decodeSegment, recordLines } from './audit-segment.ts';
import {
  type AgentSessionStore,
  type AuditLog,
  type AuditQuery,
  type AuditRecord,
  type AuditSink,
  checkDocumentId,
  type DocumentStore,
  documentJson,
  type EventLog,
  type FinishedQuery,
  type HookStore,
  type Instance,
  type InstanceStore,
  type NewAuditRecord,
  type NewTask,
  type NewToken,
  type ScriptRunStore,
  type Store,
  type StoredDocument,
  type StoredEvent,
  type Task,
  type TaskComplexity,
  type TaskFilter,
  type TaskPage,
  type TaskPatch,
  type TaskStatus,
  type TaskStore,
  type TaskUpdateResult,
  type TokenRecord,
  type TokenStore,
} from './contract.ts';
import { checkClaim, claimId, type IdempotencyClaim, idempotencyRecord, type Once, replay } from './idempotency.ts';
import { pairs, RedisHooks, RedisScriptRuns, RUN_SCRIPTS, type RunScripts } from './redis-runs.ts';
import { RedisAgentSessions, SESSION_SCRIPTS, type SessionScripts } from './redis-sessions.ts';
import {
  auditMatches,
  checkAssessment,
  checkAuditQuery,
  checkComplexity,
  checkFinishedQuery,
  checkHash,
  checkInt,
  checkIso,
  checkMetadata,
  checkStatus,
  checkStatuses,
  checkString,
  checkTokenName,
  DEFAULT_PAGE_SIZE,
  decodeCursor,
  describe,
  encodeCursor,
  invalid,
  MAX_PAGE_SIZE,
  newestFirst,
  newTaskId,
  toJson,
  validAudit,
} from './validate.ts';

/** How long a command may wait for Redis before the call fails with UNAVAILABLE (fail fast, never hang). */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/** ioredis's error for a command that got no answer within {@link REDIS_COMMAND_TIMEOUT_MS}. */
const COMMAND_TIMED_OUT = 'Command timed out';

/** How often a Redis that stopped answering is asked again (at most). */
const STALL_PROBE_MS = 250;

// --- Lua scripts ---------------------------------------------------------------------------------------------------
// Keys are derived from the prefix inside the scripts (one Redis server, not Cluster: see docs/scale-out.md).

/** Index keys of a task hash: all, by status, by type, by assignee. */
const LUA_INDEX = `
local function unindex(P, k)
  local ord = redis.call('HGET', k, 'ord')
  if not ord then return end
  redis.call('ZREM', P .. 'tasks:all', ord)
  redis.call('ZREM', P .. 'tasks:status:' .. redis.call('HGET', k, 'status'), ord)
  local t = redis.call('HGET', k, 'type')
  if t then redis.call('ZREM', P .. 'tasks:type:' .. t, ord) end
  local a = redis.call('HGET', k, 'assignedTo')
  if a then redis.call('ZREM', P .. 'tasks:assignee:' .. a, ord) end
  local c = redis.call('HGET', k, 'completedAt')
  if c then redis.call('ZREM', P .. 'tasks:finished', c .. '|' .. redis.call('HGET', k, 'id')) end
end
local function index(P, k)
  local ord = redis.call('HGET', k, 'ord')
  redis.call('ZADD', P .. 'tasks:all', 0, ord)
  redis.call('ZADD', P .. 'tasks:status:' .. redis.call('HGET', k, 'status'), 0, ord)
  local t = redis.call('HGET', k, 'type')
  if t then redis.call('ZADD', P .. 'tasks:type:' .. t, 0, ord) end
  local a = redis.call('HGET', k, 'assignedTo')
  if a then redis.call('ZADD', P .. 'tasks:assignee:' .. a, 0, ord) end
  local c = redis.call('HGET', k, 'completedAt')
  if c then redis.call('ZADD', P .. 'tasks:finished', 0, c .. '|' .. redis.call('HGET', k, 'id')) end
end
`;

/** Write a new task hash from the field/value pairs in ARGV from `first` on, and index it. */
const LUA_TASK_NEW = `${LUA_INDEX}
local function new_task(P, k, first)
  for i = first, #ARGV, 2 do redis.call('HSET', k, ARGV[i], ARGV[i + 1]) end
  index(P, k)
end
`;

/**
 * Idempotency keys for any creating script (src/store/idempotency.ts): the stored record of a key already taken,
 * and taking one — in the same script as the write, so a key and its record exist together or not at all.
 */
const LUA_ONCE = `
local function once_seen(k) return redis.call('GET', k) end
local function once_keep(k, record, ttl) redis.call('SET', k, record, 'PX', ttl) end
`;

/** KEYS[1] task; ARGV: prefix, then field/value pairs. */
const LUA_TASK_CREATE = `${LUA_TASK_NEW}
new_task(ARGV[1], KEYS[1], 2)
return 1
`;

/**
 * KEYS[1] task, KEYS[2] idempotency key; ARGV: prefix, the key's record (JSON), its ttl in ms, then field/value
 * pairs. Answers the stored record when the key is taken (nothing is written), else false.
 */
const LUA_TASK_CREATE_ONCE = `${LUA_TASK_NEW}${LUA_ONCE}
local seen = once_seen(KEYS[2])
if seen then return seen end
new_task(ARGV[1], KEYS[1], 4)
once_keep(KEYS[2], ARGV[2], ARGV[3])
return false
`;

/**
 * KEYS[1] task; ARGV: prefix, allowed statuses ('' = any, else ',a,b,'), updatedAt, number of fields to set,
 * field/value pairs, then fields to clear. Answers {'not_found'} | {'conflict', hash} | {'ok', hash}.
 */
const LUA_TASK_UPDATE = `${LUA_INDEX}
local P = ARGV[1]
local k = KEYS[1]
if redis.call('EXISTS', k) == 0 then return {'not_found'} end
if ARGV[2] ~= '' then
  local s = redis.call('HGET', k, 'status')
  if not string.find(ARGV[2], ',' .. s .. ',', 1, true) then return {'conflict', redis.call('HGETALL', k)} end
end
unindex(P, k)
local n = tonumber(ARGV[4])
for i = 5, 4 + 2 * n, 2 do redis.call('HSET', k, ARGV[i], ARGV[i + 1]) end
for i = 5 + 2 * n, #ARGV do redis.call('HDEL', k, ARGV[i]) end
redis.call('HSET', k, 'updatedAt', ARGV[3])
redis.call('HINCRBY', k, 'version', 1)
index(P, k)
return {'ok', redis.call('HGETALL', k)}
`;

/** ARGV: prefix, instance id, updatedAt. Puts the instance's assigned / in-progress tasks back to pending. */
const LUA_TASK_RELEASE = `${LUA_INDEX}
local P = ARGV[1]
local released = {}
for _, ord in ipairs(redis.call('ZRANGE', P .. 'tasks:assignee:' .. ARGV[2], 0, -1)) do
  local id = string.sub(ord, string.find(ord, '|', 1, true) + 1)
  local k = P .. 'task:' .. id
  local s = redis.call('HGET', k, 'status')
  if s == 'assigned' or s == 'in_progress' then
    unindex(P, k)
    redis.call('HSET', k, 'status', 'pending', 'updatedAt', ARGV[3])
    redis.call('HDEL', k, 'assignedTo')
    redis.call('HINCRBY', k, 'version', 1)
    index(P, k)
    released[#released + 1] = id
  end
end
return released
`;

/** KEYS[1] instance hash, KEYS[2] expiry zset; ARGV: id, roles json, now iso, now ms, expiresAt. */
const LUA_INSTANCE_REGISTER = `
local k = KEYS[1]
local reg = redis.call('HGET', k, 'registeredAt')
local exp = tonumber(redis.call('HGET', k, 'expiresAt') or '0')
if (not reg) or exp < tonumber(ARGV[4]) then reg = ARGV[3] end
redis.call('HSET', k, 'roles', ARGV[2], 'registeredAt', reg, 'lastSeenAt', ARGV[3], 'expiresAt', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
return redis.call('HGETALL', k)
`;

/** KEYS[1] instance hash, KEYS[2] expiry zset; ARGV: id, now iso, now ms, expiresAt. */
const LUA_INSTANCE_HEARTBEAT = `
local k = KEYS[1]
local exp = redis.call('HGET', k, 'expiresAt')
if (not exp) or tonumber(exp) < tonumber(ARGV[3]) then return false end
redis.call('HSET', k, 'lastSeenAt', ARGV[2], 'expiresAt', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return redis.call('HGETALL', k)
`;

/** KEYS[1] expiry zset; ARGV: prefix, now ms. Each expired id is handed to exactly one caller. */
const LUA_INSTANCE_EXPIRE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
for _, id in ipairs(ids) do
  redis.call('DEL', ARGV[1] .. 'instance:' .. id)
  redis.call('ZREM', KEYS[1], id)
end
return ids
`;

/** KEYS[1] seq counter, KEYS[2] list; ARGV: the events as JSON. Lines are 'seq<TAB>json'. */
const LUA_EVENTS_APPEND = `
local last = redis.call('INCRBY', KEYS[1], #ARGV)
local first = last - #ARGV + 1
for i = 1, #ARGV do redis.call('RPUSH', KEYS[2], (first + i - 1) .. '\\t' .. ARGV[i]) end
return last
`;

/** KEYS: tokens, by-hash, version; ARGV: name, hash, record json. */
const LUA_TOKEN_CREATE = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'name' end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 'hash' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('INCR', KEYS[3])
return 'ok'
`;

/** KEYS: tokens, by-hash, used, version; ARGV: name. */
const LUA_TOKEN_REVOKE = `
local rec = redis.call('HGET', KEYS[1], ARGV[1])
if not rec then return 0 end
redis.call('HDEL', KEYS[2], cjson.decode(rec).hash)
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('INCR', KEYS[4])
return 1
`;

/** KEYS: tokens, used; ARGV: name, at. Monotonic: canonical ISO text compares as time. */
const LUA_TOKEN_TOUCH = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
local cur = redis.call('HGET', KEYS[2], ARGV[1])
if (not cur) or cur < ARGV[2] then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
return 1
`;

/** KEYS: seq counter, zset by time; ARGV: pairs of (score ms, encoded record). Members are 'seq16<TAB>record'. */
const LUA_AUDIT_APPEND = `
local n = #ARGV / 2
local last = redis.call('INCRBY', KEYS[1], n)
local first = last - n + 1
for i = 1, n do
  redis.call('ZADD', KEYS[2], ARGV[2 * i - 1], string.format('%016d', first + i - 1) .. '\\t' .. ARGV[2 * i])
end
return last
`;

/** KEYS: zset by time; ARGV: cutoff ms (exclusive). */
const LUA_AUDIT_PRUNE = `
local n = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
return n
`;

interface Scripts {
  sbTaskCreate(key: string, ...args: string[]): Promise<number>;
  sbTaskCreateOnce(key: string, claimKey: string, ...args: string[]): Promise<string | null>;
  sbTaskUpdate(key: string, ...args: string[]): Promise<[string, string[]?]>;
  sbTaskRelease(...args: string[]): Promise<string[]>;
  sbInstanceRegister(k1: string, k2: string, ...args: string[]): Promise<string[]>;
  sbInstanceHeartbeat(k1: string, k2: string, ...args: string[]): Promise<string[] | null>;
  sbInstanceExpire(k1: string, ...args: string[]): Promise<string[]>;
  sbEventsAppend(k1: string, k2: string, ...args: string[]): Promise<number>;
  sbTokenCreate(k1: string, k2: string, k3: string, ...args: string[]): Promise<string>;
  sbTokenRevoke(k1: string, k2: string, k3: string, k4: string, name: string): Promise<number>;
  sbTokenTouch(k1: string, k2: string, name: string, at: string): Promise<number>;
  sbAuditAppend(k1: string, k2: string, ...args: string[]): Promise<number>;
  sbAuditPrune(k1: string, cutoff: string): Promise<number>;
}
type Client = Redis & Scripts & RunScripts & SessionScripts;

const SCRIPTS: [keyof Scripts, number, string][] = [
  ['sbTaskCreate', 1, LUA_TASK_CREATE],
  ['sbTaskCreateOnce', 2, LUA_TASK_CREATE_ONCE],
  ['sbTaskUpdate', 1, LUA_TASK_UPDATE],
  ['sbTaskRelease', 0, LUA_TASK_RELEASE],
  ['sbInstanceRegister', 2, LUA_INSTANCE_REGISTER],
  ['sbInstanceHeartbeat', 2, LUA_INSTANCE_HEARTBEAT],
  ['sbInstanceExpire', 1, LUA_INSTANCE_EXPIRE],
  ['sbEventsAppend', 2, LUA_EVENTS_APPEND],
  ['sbTokenCreate', 3, LUA_TOKEN_CREATE],
  ['sbTokenRevoke', 4, LUA_TOKEN_REVOKE],
  ['sbTokenTouch', 2, LUA_TOKEN_TOUCH],
  ['sbAuditAppend', 2, LUA_AUDIT_APPEND],
  ['sbAuditPrune', 1, LUA_AUDIT_PRUNE],
];

// --- helpers -------------------------------------------------------------------------------------------------------

/** Hide a password in a URL before it reaches a message or a log. */
export function safeRedisUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

/**
 * The list-order member of a task: priority descending, then id ascending (ids are time-sortable and carry the
 * creation millisecond, so id order is creation order). Any safe-integer priority maps into 0..2^54, zero-padded.
 */
function orderKey(priority: number, id: string): string {
  return `${String(2 ** 53 - priority).padStart(17, '0')}|${id}`;
}

function toTask(h: Record<string, string>): Task {
  return {
    id: h.id,
    text: h.text,
    priority: Number(h.priority),
    status: h.status as TaskStatus,
    type: h.type ?? null,
    metadata: h.metadata === undefined ? null : JSON.parse(h.metadata),
    estimatedComplexity: (h.estimatedComplexity as TaskComplexity | undefined) ?? null,
    assessment: h.assessment === undefined ? null : JSON.parse(h.assessment),
    assignedTo: h.assignedTo ?? null,
    result: h.result === undefined ? null : JSON.parse(h.result),
    error: h.error ?? null,
    createdAt: h.createdAt,
    updatedAt: h.updatedAt,
    completedAt: h.completedAt ?? null,
    version: Number(h.version),
  };
}

/** Patch field → the stored text (null clears the field), checked like the SQLite store checks its columns. */
const PATCH_FIELDS: { [K in keyof Required<TaskPatch>]: (v: unknown) => string | null } = {
  text: (v) => checkString(v, 'text', { nonEmpty: true }),
  priority: (v) => String(checkInt(v, 'priority')),
  status: (v) => checkStatus(v, 'status'),
  type: (v) => checkString(v, 'type', { nullable: true }),
  metadata: (v) => checkMetadata(v),
  assignedTo: (v) => checkString(v, 'assignedTo', { nullable: true }),
  result: (v) => toJson(v, 'result'),
  error: (v) => checkString(v, 'error', { nullable: true }),
  completedAt: (v) => checkString(v, 'completedAt', { nullable: true }),
  estimatedComplexity: (v) => checkComplexity(v),
  assessment: (v) => checkAssessment(v),
};

// --- parts ---------------------------------------------------------------------------------------------------------

class RedisTasks implements TaskStore {
  constructor(
    private readonly r: Client,
    private readonly P: string,
    private readonly io: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  async create(task: NewTask): Promise<Task> {
    const { key, args, task: created } = this.newTask(task);
    await this.io(() => this.r.sbTaskCreate(key, this.P, ...args));
    return created;
  }

  async createOnce(task: NewTask, claim: IdempotencyClaim): Promise<Once<Task>> {
    const checked = checkClaim(claim);
    const { key, args, task: created } = this.newTask(task);
    const record = idempotencyRecord(checked, created);
    const seen = await this.io(() =>
      this.r.sbTaskCreateOnce(
        key,
        `${this.P}idem:${claimId(checked)}`,
        this.P,
        JSON.stringify(record),
        String(checked.ttlMs),
        ...args,
      ),
    );
    return seen === null ? { value: created, replayed: false } : replay<Task>(checked, JSON.parse(seen));
  }

  /** A checked new task: its key, its hash as field/value pairs (null fields left out), and the task itself. */
  private newTask(task: NewTask): { key: string; args: string[]; task: Task } {
    if (!task || typeof task !== 'object') invalid(`task must be an object, got ${describe(task)}.`);
    const text = checkString(task.text, 'text', { nonEmpty: true })!;
    const priority = checkInt(task.priority, 'priority');
    const type = task.type === undefined ? null : checkString(task.type, 'type', { nullable: true });
    const metadata = checkMetadata(task.metadata);
    const estimatedComplexity = checkComplexity(task.estimatedComplexity);
    const { id, time } = newTaskId();
    const at = new Date(time).toISOString();
    const fields: Record<string, string | null> = {
      id,
      text,
      priority: String(priority),
      status: 'pending',
      type,
      metadata,
      estimatedComplexity,
      createdAt: at,
      updatedAt: at,
      version: '1',
      ord: orderKey(priority, id),
    };
    const args = Object.entries(fields).flatMap(([k, v]) => (v === null ? [] : [k, v]));
    return {
      key: `${this.P}task:${id}`,
      args,
      task: toTask(Object.fromEntries(args.flatMap((v, i) => (i % 2 ? [] : [[v, args[i + 1]]])))),
    };
  }

  async get(id: string): Promise<Task | undefined> {
    if (typeof id !== 'string') return undefined;
    const h = await this.io(() => this.r.hgetall(`${this.P}task:${id}`));
    return h.id ? toTask(h) : undefined;
  }

  async list(filter: TaskFilter = {}): Promise<TaskPage> {
    if (typeof filter !== 'object' || filter === null) invalid(`filter must be an object, got ${describe(filter)}.`);
    const statuses = filter.status === undefined ? [] : checkStatuses(filter.status, 'status');
    const assignedTo = filter.assignedTo === undefined ? undefined : checkString(filter.assignedTo, 'assignedTo')!;
    const type = filter.type === undefined ? undefined : checkString(filter.type, 'type')!;
    const limit = filter.limit === undefined ? DEFAULT_PAGE_SIZE : checkInt(filter.limit, 'limit', 1, MAX_PAGE_SIZE);
    const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);
    // Walk the narrowest index in list order from the cursor; the other filters apply to what it yields.
    const index =
      assignedTo !== undefined
        ? `tasks:assignee:${assignedTo}`
        : type !== undefined
          ? `tasks:type:${type}`
          : statuses.length === 1
            ? `tasks:status:${statuses[0]}`
            : 'tasks:all';
    const keep = (t: Task) =>
      (statuses.length === 0 || statuses.includes(t.status)) &&
      (assignedTo === undefined || t.assignedTo === assignedTo) &&
      (type === undefined || t.type === type);
    const found: Task[] = [];
    let from = after ? `(${orderKey(after.p, after.i)}` : '-';
    const batch = Math.max(limit + 1, 100);
    // Bounded: each round either fills the page or reaches the end of the index.
    for (;;) {
      const members = await this.io(() => this.r.zrangebylex(`${this.P}${index}`, from, '+', 'LIMIT', 0, batch));
      if (members.length === 0) break;
      const pipe = this.r.pipeline();
      for (const m of members) pipe.hgetall(`${this.P}task:${m.slice(m.indexOf('|') + 1)}`);
      const rows = (await this.io(() => pipe.exec())) ?? [];
      for (const [err, h] of rows) {
        if (err) throw err;
        const row = h as Record<string, string>;
        if (row.id) {
          const t = toTask(row);
          if (keep(t)) found.push(t);
        }
      }
      if (found.length > limit || members.length < batch) break;
      from = `(${members[members.length - 1]}`;
    }
    const more = found.length > limit;
    if (more) found.length = limit;
    const last = found[found.length - 1];
    return { tasks: found, nextCursor: more ? encodeCursor(last.priority, last.createdAt, last.id) : null };
  }

  async update(id: string, patch: TaskPatch, opts: { from?: readonly TaskStatus[] } = {}): Promise<TaskUpdateResult> {
    if (typeof id !== 'string') return { ok: false, reason: 'not_found' };
    if (!patch || typeof patch !== 'object') invalid(`patch must be an object, got ${describe(patch)}.`);
    // Validate every field before the script: a bad field must not leave a half-applied change.
    const set: string[] = [];
    const clear: string[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      const field = Object.hasOwn(PATCH_FIELDS, key) ? PATCH_FIELDS[key as keyof TaskPatch] : undefined;
      if (!field)
        invalid(
          `'${key}' is not a task field that can be changed; use one of ${Object.keys(PATCH_FIELDS).join(', ')}.`,
        );
      const text = field(value);
      if (text === null) clear.push(key);
      else set.push(key, text);
    }
    const from = opts.from === undefined ? undefined : checkStatuses(opts.from, 'from');
    if (patch.priority !== undefined) set.push('ord', orderKey(patch.priority, id));
    const reply = await this.io(() =>
      this.r.sbTaskUpdate(
        `${this.P}task:${id}`,
        this.P,
        from ? `,${from.join(',')},` : '',
        new Date().toISOString(),
        String(set.length / 2),
        ...set,
        ...clear,
      ),
    );
    if (reply[0] === 'not_found') return { ok: false, reason: 'not_found' };
    const task = toTask(pairs(reply[1] as string[]));
    return reply[0] === 'conflict' ? { ok: false, reason: 'conflict', task } : { ok: true, task };
  }

  /**
   * Walks `tasks:finished` (members 'completedAt|id', kept by the index scripts) from the newest down to `since`;
   * the type filter applies to what it yields, so a narrow type reads more members, never a wrong answer.
   */
  async finished(query: FinishedQuery): Promise<Task[]> {
    const q = checkFinishedQuery(query);
    const found: Task[] = [];
    const batch = Math.max(q.limit, 100);
    for (let offset = 0; found.length < q.limit; offset += batch) {
      const members = await this.io(() =>
        this.r.zrevrangebylex(`${this.P}tasks:finished`, '+', `[${q.since}`, 'LIMIT', offset, batch),
      );
      if (members.length === 0) break;
      const pipe = this.r.pipeline();
      for (const m of members) pipe.hgetall(`${this.P}task:${m.slice(m.lastIndexOf('|') + 1)}`);
      const rows = (await this.io(() => pipe.exec())) ?? [];
      for (const [err, h] of rows) {
        if (err) throw err;
        const row = h as Record<string, string>;
        if (!row.id || (row.completedAt ?? '') < q.since) continue;
        if (q.type === null || row.type === q.type) found.push(toTask(row));
      }
      if (members.length < batch) break;
    }
    return found.slice(0, q.limit);
  }

  async releaseInstance(instanceId: string): Promise<string[]> {
    checkString(instanceId, 'instanceId');
    const ids = await this.io(() => this.r.sbTaskRelease(this.P, instanceId, new Date().toISOString()));
    return [...ids].sort();
  }
}

function toInstance(h: Record<string, string>, id: string): Instance {
  return {
    id,
    roles: JSON.parse(h.roles),
    registeredAt: h.registeredAt,
    lastSeenAt: h.lastSeenAt,
    expiresAt: Number(h.expiresAt),
  };
}

class RedisInstances implements InstanceStore {
  constructor(
    private readonly r: Client,
    private readonly P: string,
    private readonly io: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  private get expiry() {
    return `${this.P}instances`;
  }

  async register(id: string, roles: string[], ttlMs: number): Promise<Instance> {
    checkString(id, 'id', { nonEmpty: true });
    if (!Array.isArray(roles)) invalid(`roles must be an array of strings, got ${describe(roles)}.`);
    for (const [i, r] of roles.entries()) checkString(r, `roles[${i}]`);
    const ttl = checkInt(ttlMs, 'ttlMs', 1);
    const nowMs = Date.now();
    const reply = await this.io(() =>
      this.r.sbInstanceRegister(
        `${this.P}instance:${id}`,
        this.expiry,
        id,
        JSON.stringify(roles),
        new Date(nowMs).toISOString(),
        String(nowMs),
        String(nowMs + ttl),
      ),
    );
    return toInstance(pairs(reply), id);
  }

  async heartbeat(id: string, ttlMs: number): Promise<Instance | undefined> {
    const ttl = checkInt(ttlMs, 'ttlMs', 1);
    if (typeof id !== 'string') return undefined;
    const nowMs = Date.now();
    const reply = await this.io(() =>
      this.r.sbInstanceHeartbeat(
        `${this.P}instance:${id}`,
        this.expiry,
        id,
        new Date(nowMs).toISOString(),
        String(nowMs),
        String(nowMs + ttl),
      ),
    );
    return reply ? toInstance(pairs(reply), id) : undefined;
  }

  async get(id: string): Promise<Instance | undefined> {
    if (typeof id !== 'string') return undefined;
    const h = await this.io(() => this.r.hgetall(`${this.P}instance:${id}`));
    return h.registeredAt ? toInstance(h, id) : undefined;
  }

  async list(): Promise<Instance[]> {
    const ids = (await this.io(() => this.r.zrange(this.expiry, '0', '-1'))).sort();
    if (ids.length === 0) return [];
    const pipe = this.r.pipeline();
    for (const id of ids) pipe.hgetall(`${this.P}instance:${id}`);
    const rows = (await this.io(() => pipe.exec())) ?? [];
    const out: Instance[] = [];
    rows.forEach(([err, h], i) => {
      if (err) throw err;
      const row = h as Record<string, string>;
      if (row.registeredAt) out.push(toInstance(row, ids[i]));
    });
    return out;
  }

  async expire(now: number): Promise<string[]> {
    if (typeof now !== 'number' || !Number.isFinite(now))
      invalid(`now must be epoch milliseconds, got ${describe(now)}.`);
    const ids = await this.io(() => this.r.sbInstanceExpire(this.expiry, this.P, String(now)));
    return [...ids].sort();
  }
}

class RedisEvents implements EventLog {
  constructor(
    private readonly r: Client,
    private readonly P: string,
    private readonly io: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  async append(event: BusEvent): Promise<void> {
    await this.appendMany([event]);
  }

  async appendMany(events: readonly BusEvent[]): Promise<void> {
    const rows = events.map((event) => {
      if (!event || typeof event !== 'object' || typeof event.type !== 'string')
        invalid(`event must be an object with a string type, got ${describe(event)}.`);
      return toJson(event, 'event') as string;
    });
    if (rows.length === 0) return;
    await this.io(() => this.r.sbEventsAppend(`${this.P}events:seq`, `${this.P}events`, ...rows));
  }

  async recent(limit: number): Promise<StoredEvent[]> {
    const n = checkInt(limit, 'limit', 0);
    if (n === 0) return [];
    const lines = await this.io(() => this.r.lrange(`${this.P}events`, -n, -1));
    return lines.map((line) => {
      const tab = line.indexOf('\t');
      return { seq: Number(line.slice(0, tab)), event: JSON.parse(line.slice(tab + 1)) };
    });
  }

  async trim(max: number): Promise<void> {
    const n = checkInt(max, 'max', 0);
    await this.io(async () => {
      if (n === 0) await this.r.del(`${this.P}events`);
      else await this.r.ltrim(`${this.P}events`, -n, -1);
    });
  }
}

interface TokenJson {
  name: string;
  hash: string;
  roles: string[];
  createdAt: string;
  expiresAt: string | null;
}

class RedisTokens implements TokenStore {
  private readonly k: { all: string; byHash: string; used: string; version: string };

  constructor(
    private readonly r: Client,
    P: string,
    private readonly io: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {
    this.k = {
      all: `${P}tokens`,
      byHash: `${P}tokens:by-hash`,
      used: `${P}tokens:used`,
      version: `${P}tokens:version`,
    };
  }

  private record(json: string, used: string | null | undefined): TokenRecord {
    const t = JSON.parse(json) as TokenJson;
    return { ...t, lastUsedAt: used ?? null };
  }

  async version(): Promise<string> {
    return (await this.io(() => this.r.get(this.k.version))) ?? '0';
  }

  async create(token: NewToken): Promise<TokenRecord> {
    if (!token || typeof token !== 'object') invalid(`token must be an object, got ${describe(token)}.`);
    const name = checkTokenName(token.name);
    const hash = checkHash(token.hash);
    if (!Array.isArray(token.roles)) invalid(`roles must be an array of strings, got ${describe(token.roles)}.`);
    for (const [i, r] of token.roles.entries()) checkString(r, `roles[${i}]`, { nonEmpty: true });
    const expiresAt =
      token.expiresAt === undefined || token.expiresAt === null ? null : checkIso(token.expiresAt, 'expiresAt');
    const rec: TokenJson = { name, hash, roles: [...token.roles], createdAt: new Date().toISOString(), expiresAt };
    const json = JSON.stringify(rec);
    const res = await this.io(() => this.r.sbTokenCreate(this.k.all, this.k.byHash, this.k.version, name, hash, json));
    if (res === 'name')
      throw new SwitchboardError(
        'CONFLICT',
        `Token '${name}' already exists; revoke it first with: switchboard token revoke ${name}`,
      );
    if (res === 'hash')
      throw new SwitchboardError(
        'CONFLICT',
        'Another token already has this hash; generate a new token instead of reusing one.',
      );
    return { ...rec, lastUsedAt: null };
  }

  async list(): Promise<TokenRecord[]> {
    const [all, used] = await this.io(() => Promise.all([this.r.hgetall(this.k.all), this.r.hgetall(this.k.used)]));
    return Object.keys(all)
      .sort()
      .map((name) => this.record(all[name], used[name]));
  }

  async get(name: string): Promise<TokenRecord | undefined> {
    checkTokenName(name);
    const [json, used] = await this.io(() =>
      Promise.all([this.r.hget(this.k.all, name), this.r.hget(this.k.used, name)]),
    );
    return json ? this.record(json, used) : undefined;
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    checkHash(hash);
    const name = await this.io(() => this.r.hget(this.k.byHash, hash));
    return name ? this.get(name) : undefined;
  }

  async revoke(name: string): Promise<boolean> {
    checkTokenName(name);
    return (
      (await this.io(() => this.r.sbTokenRevoke(this.k.all, this.k.byHash, this.k.used, this.k.version, name))) === 1
    );
  }

  async touch(name: string, atIso: string): Promise<void> {
    checkTokenName(name);
    const at = checkIso(atIso, 'atIso');
    await this.io(() => this.r.sbTokenTouch(this.k.all, this.k.used, name, at));
  }

  async count(): Promise<number> {
    return this.io(() => this.r.hlen(this.k.all));
  }
}

/** The audit script's arguments for a batch: each record's score (its start, epoch ms) and its line. */
function scriptArgs(batch: AuditBatchData): string[] {
  return recordLines(batch).flatMap((line, i) => [String(Math.trunc(batch.times[2 * i])), line]);
}

class RedisAudit implements AuditLog {
  private readonly seqKey: string;
  private readonly byTime: string;

  constructor(
    private readonly r: Client,
    P: string,
    private readonly io: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {
    this.seqKey = `${P}audit:seq`;
    this.byTime = `${P}audit`;
  }

  async append(record: NewAuditRecord): Promise<void> {
    await this.appendMany([record]);
  }

  /** One script call: every record gets its seq and lands, or none does. */
  async appendMany(records: readonly NewAuditRecord[]): Promise<void> {
    if (!Array.isArray(records)) invalid(`audit records must be an array, got ${describe(records)}.`);
    if (records.length === 0) return;
    const args = scriptArgs(AuditBatch.of(records.map(validAudit)));
    await this.io(() => this.r.sbAuditAppend(this.seqKey, this.byTime, ...args));
  }

  /**
   * The hub's writer: its records are built by the hub, so they skip validation and go out as one script call per
   * batch without waiting (the connection pipelines them); `flush` waits for what was written before it.
   */
  openSink(onError: (message: string) => void): AuditSink {
    let last: Promise<unknown> = Promise.resolve();
    const write = (batch: AuditBatchData) => {
      if (batch.count === 0) return;
      const args = scriptArgs(batch);
      last = this.io(() => this.r.sbAuditAppend(this.seqKey, this.byTime, ...args)).catch((err) =>
        onError((err as Error).message),
      );
    };
    return {
      write,
      flush: () => last.then(() => {}),
      close: () => last.then(() => {}),
    };
  }

  async query(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const q = checkAuditQuery(query);
    // Scores are epoch ms of `at` (canonical ISO has ms precision), so the score range is the time range; equal
    // times order by the zero-padded seq in the member, newest first.
    const max = q.until === '\uffff' ? '+inf' : `(${Date.parse(q.until)}`;
    const min = q.since === '' ? '-inf' : String(Date.parse(q.since));
    const found: AuditRecord[] = [];
    const batch = Math.max(q.limit, 500);
    for (let offset = 0; found.length < q.limit; offset += batch) {
      const members = await this.io(() => this.r.zrevrangebyscore(this.byTime, max, min, 'LIMIT', offset, batch));
      for (const m of members) {
        const tab = m.indexOf('\t');
        const [r] = decodeSegment(Number(m.slice(0, tab)), m.slice(tab + 1));
        if (auditMatches(r, q)) found.push(r);
      }
      if (members.length < batch) break;
    }
    return found.sort(newestFirst).slice(0, q.limit);
  }

  async prune(before: string): Promise<number> {
    const at = checkIso(before, 'before');
    return this.io(() => this.r.sbAuditPrune(this.byTime, String(Date.parse(at))));
  }
}

class RedisDocuments implements DocumentStore {
  constructor(
    private readonly r: Client,
    private readonly P: string,
    private readonly io: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  /** Stored as 'updatedAt<TAB>json' in one hash per namespace. */
  private decode<T>(namespace: string, key: string, text: string): StoredDocument<T> {
    const tab = text.indexOf('\t');
    return { namespace, key, value: JSON.parse(text.slice(tab + 1)) as T, updatedAt: text.slice(0, tab) };
  }

  async get<T>(namespace: string, key: string): Promise<StoredDocument<T> | undefined> {
    checkDocumentId(namespace, key);
    const text = await this.io(() => this.r.hget(`${this.P}doc:${namespace}`, key));
    return text === null ? undefined : this.decode<T>(namespace, key, text);
  }

  async put(namespace: string, key: string, value: unknown): Promise<StoredDocument> {
    checkDocumentId(namespace, key);
    const text = documentJson(value);
    const updatedAt = new Date().toISOString();
    await this.io(() => this.r.hset(`${this.P}doc:${namespace}`, key, `${updatedAt}\t${text}`));
    return { namespace, key, value: JSON.parse(text), updatedAt };
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    checkDocumentId(namespace, key);
    return (await this.io(() => this.r.hdel(`${this.P}doc:${namespace}`, key))) > 0;
  }

  async list<T>(namespace: string): Promise<StoredDocument<T>[]> {
    checkDocumentId(namespace, 'x');
    const all = await this.io(() => this.r.hgetall(`${this.P}doc:${namespace}`));
    return Object.keys(all)
      .sort()
      .map((key) => this.decode<T>(namespace, key, all[key]));
  }
}

// --- the store -----------------------------------------------------------------------------------------------------

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]`. */
  url: string;
  /** Prepended to every key, so several hubs (or test runs) share one server without meeting. */
  prefix: string;
  /** How long to wait for the first connection before giving up (ms). */
  connectTimeoutMs?: number;
}

/**
 * The Redis {@link Store}. Commands never queue while Redis is away: they fail at once (or after
 * {@link REDIS_COMMAND_TIMEOUT_MS} when Redis stops answering) with UNAVAILABLE, and the client reconnects by
 * itself, so the instance recovers when Redis comes back.
 *
 * @example
 * const store = await RedisStore.open({ url: 'redis://127.0.0.1:6379', prefix: 'switchboard:' });
 * await store.tasks.create({ text: 'Write the README', priority: 50 });
 * await store.close();
 */
export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly tasks: TaskStore;
  readonly instances: InstanceStore;
  readonly events: EventLog;
  readonly tokens: TokenStore;
  readonly audit: AuditLog;
  readonly documents: DocumentStore;
  readonly hooks: HookStore;
  readonly scriptRuns: ScriptRunStore;
  readonly agentSessions: AgentSessionStore;
  private closed = false;
  /** Set while Redis is known to have stopped answering (see {@link RedisStore.io}); ends when it answers again. */
  private stalled: Promise<void> | undefined;

  private constructor(
    /** The connection (the event bus and shared policy reuse its options for their own connections). */
    readonly client: Client,
    readonly url: string,
    readonly prefix: string,
  ) {
    const io = <T>(fn: () => Promise<T>) => this.io(fn);
    this.tasks = new RedisTasks(client, prefix, io);
    this.instances = new RedisInstances(client, prefix, io);
    this.events = new RedisEvents(client, prefix, io);
    this.tokens = new RedisTokens(client, prefix, io);
    this.audit = new RedisAudit(client, prefix, io);
    this.documents = new RedisDocuments(client, prefix, io);
    this.hooks = new RedisHooks(client, prefix, io);
    this.scriptRuns = new RedisScriptRuns(client, prefix, io);
    this.agentSessions = new RedisAgentSessions(client, prefix, io);
  }

  /** A new connection with the store's fail-fast settings (for subscribers and blocking reads). */
  static connect(url: string, opts: { lazy?: boolean; autoPipelining?: boolean } = {}): Client {
    const client = new Redis(url, {
      lazyConnect: opts.lazy ?? true,
      // Commands issued in one event-loop turn go out in one socket write: under concurrent calls a socket write per
      // command was the largest single item of an instance's CPU profile (A/B: 113 → 106 µs per call, median of 3).
      enableAutoPipelining: opts.autoPipelining ?? false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
      // Reconnect forever, at most every second: the instance recovers on its own when Redis returns.
      retryStrategy: (times) => Math.min(50 * times, 1_000),
    }) as Client;
    for (const [name, numberOfKeys, lua] of [...SCRIPTS, ...RUN_SCRIPTS, ...SESSION_SCRIPTS])
      client.defineCommand(name, { numberOfKeys, lua });
    // Errors surface per command; the connection's own error events would otherwise be unhandled.
    client.on('error', () => {});
    return client;
  }

  /** Connect (failing with UNAVAILABLE when Redis does not answer) and return the store. */
  static async open(opts: RedisStoreOptions): Promise<RedisStore> {
    if (typeof opts.prefix !== 'string' || opts.prefix.length === 0 || opts.prefix.length > 100)
      invalid(`store prefix must be a string of 1-100 characters, got ${describe(opts.prefix)}.`);
    const client = RedisStore.connect(opts.url, { autoPipelining: true });
    try {
      await client.connect();
    } catch (err) {
      client.disconnect();
      throw unavailable(opts.url, err);
    }
    return new RedisStore(client, opts.url, opts.prefix);
  }

  /**
   * Run one Redis operation, turning a failure into UNAVAILABLE that names the server and says honestly whether the
   * request may have been carried out. A request is not sent at all while the connection is down or while Redis is
   * known to have stopped answering (a command timed out and no answer came since): it then fails at once, certainly
   * not carried out, and a call that makes several round trips waits for at most one command timeout.
   */
  async io<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new SwitchboardError('UNAVAILABLE', `The Redis store ${safeRedisUrl(this.url)} is closed.`);
    if (this.client.status !== 'ready') throw unavailable(this.url, new NotSent(`connection ${this.client.status}`));
    if (this.stalled) throw unavailable(this.url, new NotSent('it stopped answering'));
    try {
      return await fn();
    } catch (err) {
      if (err instanceof SwitchboardError) throw err;
      if (err instanceof Error && err.message === COMMAND_TIMED_OUT) this.watchStall();
      throw unavailable(this.url, err);
    }
  }

  /**
   * Redis stopped answering: hold back further commands until it answers a PING again (a stopped server answers
   * everything it was sent when it resumes, so every command held back is one that certainly did not happen).
   */
  private watchStall(): void {
    if (this.stalled) return;
    this.stalled = (async () => {
      while (!this.closed) {
        const asked = Date.now();
        const answered = await this.client.ping().catch(() => undefined);
        if (answered !== undefined) break;
        // A ping refused at once (the connection is down) is asked again after a pause, not in a busy loop.
        const rest = STALL_PROBE_MS - (Date.now() - asked);
        if (rest > 0) await new Promise((r) => setTimeout(r, rest).unref());
      }
      this.stalled = undefined;
    })();
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /** Delete every key under this store's prefix (tests and `prefix` teardown); SCAN + UNLINK, never KEYS. */
  async dropAll(): Promise<number> {
    let cursor = '0';
    let n = 0;
    do {
      const [next, keys] = await this.io(() =>
        this.client.scan(cursor, 'MATCH', `${escapeGlob(this.prefix)}*`, 'COUNT', 500),
      );
      cursor = next;
      if (keys.length) n += await this.io(() => this.client.unlink(...keys));
    } while (cursor !== '0');
    return n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, '\\$&');
}

/** ioredis's error for a command it did not send because the connection was not writable. */
const NOT_SENT = /enableOfflineQueue options is false/;

/** Why the store did not send a request at all. */
class NotSent extends Error {}

/**
 * The error every Redis failure becomes, with `details.outcome` saying what a retry risks: `not_carried_out` when
 * the request certainly did not reach Redis (it was never sent, or Redis refused it), `unknown` when it was sent and
 * no answer came (a timeout, a connection lost mid-way): Redis may have run it, or may still run it when it resumes.
 */
export function unavailable(url: string, err: unknown): SwitchboardError {
  const why = err instanceof Error ? err.message : String(err);
  const where = `Redis at ${safeRedisUrl(url)}`;
  // A reply error is Redis answering "no" (out of memory under noeviction, a read-only replica), not silence.
  if (err instanceof Error && err.name === 'ReplyError')
    return new SwitchboardError(
      'UNAVAILABLE',
      `${where} refused the request (${why}); it was not carried out. Check the Redis server (memory, role).`,
      { store: 'refused', outcome: 'not_carried_out' },
    );
  if (err instanceof NotSent || NOT_SENT.test(why))
    return new SwitchboardError(
      'UNAVAILABLE',
      `${where} is unreachable (${why}); the request was not carried out. Retry when Redis is back.`,
      { store: 'unreachable', outcome: 'not_carried_out' },
    );
  return new SwitchboardError(
    'UNAVAILABLE',
    `${where} is unreachable (${why}) after the request was sent, so it may or may not have been carried out (Redis may still run it when it resumes). Check the outcome before repeating a write.`,
    { store: 'unreachable', outcome: 'unknown' },
  );
}
