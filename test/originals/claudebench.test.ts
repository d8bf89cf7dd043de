// ClaudeBench's own data files (../shared/originals/claudebench): its JSON-RPC wire contract and the Claude Code
// settings its users run (`claude_code_hooks.json`). The contract: the hook facts npm test relies on
// (test/fixtures/claudebench-format/hooks.ts) are its, Switchboard's hook answers are valid results of it, and the
// task and system inputs keep its spelling. The settings: the tools their permissions name are served under the same
// names, `switchboard hook dispatch` in the place of ClaudeBench's hook script answers every event they register —
// with the decisions the hook tools give — and `install claude-code` merges into them and `uninstall` gives them back.
// Its JSON-RPC endpoint (`[compat] claudebench_rpc`): every method of the contract answered in its shape on a real
// hub over HTTP, a relay of ours sending what ClaudeBench's hook relay sends for each event the settings register,
// its task and attachment calls with its own parameter names, and the endpoint absent while off.
// Over 400 lines: one file per original's data files (test/originals/), as the other originals have.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jsonValidator } from '../../src/core/ajv.ts';
import type { Principal } from '../../src/core/context.ts';
import {
  CLAUDEBENCH_HOOKS,
  CLAUDEBENCH_TODO_STATUSES,
  type ClaudeBenchHook,
  type FieldType,
} from '../fixtures/claudebench-format/hooks.ts';
import {
  BIN,
  childEnv,
  connectStdio,
  type HttpServerProcess,
  ROOT,
  runCli,
  startHttpServer,
  tempProject,
} from '../helpers/cli.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { original } from '../helpers/originals.ts';
import { pluginProject, writeFiles, writePlugin } from '../helpers/plugins.ts';

/** The parts of a JSON Schema in the contract these tests read. */
interface Schema {
  type?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
}
const CONTRACT = JSON.parse(readFileSync(original('claudebench', 'jsonrpc-contract.json'), 'utf8')) as {
  definitions: Record<string, Record<string, unknown>>;
  errorCodes: Record<string, string>;
  events: Record<
    string,
    { request: { properties: { params?: Schema } }; response?: { properties: { result: Schema } } }
  >;
};
const SETTINGS_TEXT = readFileSync(original('claudebench', 'claude_code_hooks.json'), 'utf8');
const SETTINGS = JSON.parse(SETTINGS_TEXT) as {
  permissions: { allow: string[] };
  hooks: Record<string, { matcher: string; hooks: { type: string; command: string }[] }[]>;
};
const HOOK_TOOLS = Object.keys(CLAUDEBENCH_HOOKS) as ClaudeBenchHook[];
const agent: Principal = { id: 'agent-1', roles: ['agent'], kind: 'token' };

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

/** The request params of a ClaudeBench event in its contract. */
const paramsOf = (event: string): Schema => CONTRACT.events[event].request.properties.params ?? {};

/** A contract result schema in the notation of test/fixtures/claudebench-format/hooks.ts. */
function shapeOf(schema: Schema | undefined = {}): Record<string, FieldType> {
  return Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([k, p]) => [
      k,
      `${p.type ?? 'any'}${schema.required?.includes(k) ? '' : '?'}` as FieldType,
    ]),
  );
}

/** Whether `value` is a valid `result` of ClaudeBench's event `name`. */
function validResult(name: string, value: unknown): boolean {
  return resultErrors(name, value).length === 0;
}

/** Where `value` breaks the `result` schema of ClaudeBench's event `name`: each failing keyword and its place. */
function resultErrors(name: string, value: unknown): string[] {
  const v = jsonValidator({ ...CONTRACT.events[name].response?.properties.result });
  if (!v.ok) throw new Error(v.message);
  return v.validate(value) ? [] : (v.validate.errors ?? []).map((e) => `${e.keyword} ${e.instancePath}`);
}

async function answer(h: TestHub, name: string, input: unknown) {
  const out = await h.call(name, input, agent);
  if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
  return out.value as Record<string, unknown>;
}

/**
 * A project whose plugins decide on every event ClaudeBench's settings register: a PreToolUse guard on Bash (exit 2
 * denies), checks after Edit|Write and TodoWrite and before stopping (bad.txt must not exist), and a hook that fails
 * on each event where a failure cannot block (it says so on stderr).
 */
function guardedProject(): string {
  const root = pluginProject();
  writePlugin(
    root,
    'guard',
    `hooks:\n  no-shell-deletes:\n    event: PreToolUse\n    tool_filter: [Bash]\n    command: 'grep -q "rm -rf" || exit 0; echo "shell deletes are not allowed here" >&2; exit 2'\n`,
    { file: 'han-plugin.yml' },
  );
  writePlugin(
    root,
    'checks',
    `hooks:\n  no-bad-file:\n    event: PostToolUse:Edit|Write\n    command: 'test ! -e bad.txt || { echo "bad.txt must not exist"; exit 1; }'\n` +
      `  one-in-progress:\n    event: PostToolUse:TodoWrite\n    command: 'grep -q in_progress || { echo "mark one todo in_progress"; exit 1; }'\n` +
      `  clean-stop:\n    event: [Stop, SubagentStop]\n    command: 'test ! -e bad.txt || { echo "remove bad.txt before stopping"; exit 1; }'\n` +
      `  noted:\n    event: [UserPromptSubmit, Notification, SessionStart, PreCompact, SessionEnd]\n    command: 'echo "noted by the project"; exit 1'\n`,
  );
  writeFiles(root, { 'bad.txt': 'x' });
  return root;
}

/** Run a hook command as Claude Code does: the event on stdin, in the project; answers exit code and output. */
function runHookCommand(
  argv: string[],
  root: string,
  event: unknown,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: root,
      env: childEnv(root, env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(JSON.stringify(event));
  });
}

describe("ClaudeBench's wire contract", () => {
  it('has the hook fields, required fields, answers and todo statuses npm test checks Switchboard against', () => {
    for (const name of HOOK_TOOLS) {
      const facts = CLAUDEBENCH_HOOKS[name];
      const params = paramsOf(name);
      expect(params.required, name).toEqual(facts.required);
      expect(facts.fields, name).toEqual(expect.arrayContaining(Object.keys(params.properties ?? {})));
      expect(shapeOf(CONTRACT.events[name].response?.properties.result), name).toEqual(facts.answer);
    }
    expect(paramsOf('hook.todo_write').properties?.todos.items?.properties?.status.enum).toEqual(
      CLAUDEBENCH_TODO_STATUSES,
    );
  });

  it("answers a request with just the contract's required params with a valid result of it", async () => {
    hub = await testHub({ cwd: guardedProject() });
    await hub.ready();
    const h = hub;
    const requests: [ClaudeBenchHook, Record<string, unknown>][] = [
      ['hook.pre_tool', { tool: 'Bash', params: { command: 'rm -rf build' } }],
      ['hook.pre_tool', { tool: 'Read', params: { file_path: 'a.ts' } }],
      ['hook.post_tool', { tool: 'Edit', result: { ok: true } }],
      ['hook.user_prompt', { prompt: '/test:random 5 apples', context: {} }],
      ['hook.todo_write', { todos: [{ content: 'ship', status: 'pending' }] }],
    ];
    const answers = [];
    for (const [name, input] of requests) {
      expect(Object.keys(input), name).toEqual(paramsOf(name).required);
      const out = await answer(h, name, input);
      expect(validResult(name, out), `${name} ${JSON.stringify(out)}`).toBe(true);
      answers.push(out);
    }
    // The answers are decisions, not just well-formed: a deny, an allow, two blocks and a rerouted prompt.
    expect(answers.map((a) => a.allow)).toEqual([false, true, false, undefined, false]);
    expect(answers[3].modified).toContain('mcp__switchboard__script__start');
  });

  it('spells every param camelCase, and those of the events Switchboard shares keep their names or a documented rename', async () => {
    const camel = /^[a-z][a-zA-Z0-9]*$/;
    const theirs = Object.entries(CONTRACT.events).flatMap(([event]) =>
      Object.keys(paramsOf(event).properties ?? {}).map((k) => `${event}.${k}`),
    );
    expect(theirs).toContain('system.heartbeat.instanceId');
    expect(theirs.filter((k) => !camel.test(k.split('.').pop() as string))).toEqual([]);

    // docs/coming-from-claudebench.md, "What maps to what": the task is `id`, an instance `instanceId`, and
    // task.update takes the fields themselves rather than `updates`.
    const renamed: Record<string, string> = {
      'task.assign.taskId': 'task.assign.id',
      'system.register.id': 'system.register.instanceId',
      'task.update.updates': 'task.update.text',
    };
    hub = await testHub();
    const ours = new Map(
      hub.services.registry
        .list()
        .map((e) => [e.capability.name, (e.tool.inputSchema as { properties?: object }).properties ?? {}]),
    );
    const shared = theirs.filter((k) => ours.has(k.slice(0, k.lastIndexOf('.'))));
    expect(shared.length).toBeGreaterThan(15);
    const missing = shared
      .map((k) => renamed[k] ?? k)
      .filter((k) => !(k.slice(k.lastIndexOf('.') + 1) in (ours.get(k.slice(0, k.lastIndexOf('.'))) as object)));
    expect(missing).toEqual([]);
  });
});

describe("a ClaudeBench user's Claude Code settings", () => {
  it('allow tools Switchboard serves under the same names', async () => {
    const names = SETTINGS.permissions.allow.flatMap((p) => /^mcp__claudebench__(.+)$/.exec(p)?.[1] ?? []);
    expect(names.length).toBeGreaterThan(3);
    const { client } = await connectStdio(tempProject());
    try {
      const served = (await client.listTools()).tools.map((t) => t.name);
      expect(served).toEqual(expect.arrayContaining(names));
    } finally {
      await client.close();
    }
  }, 60_000);

  it('get, from `switchboard hook dispatch` in the place of their hook script, the hook tools’ decisions on every event', async () => {
    const root = guardedProject();
    hub = await testHub({ cwd: root });
    await hub.ready();
    const h = hub;
    const dispatch = [process.execPath, BIN, 'hook', 'dispatch'];
    const base = { session_id: 's-1', transcript_path: join(root, 'none.jsonl'), cwd: root };
    const todos = [{ content: 'ship', status: 'pending', activeForm: 'Shipping' }];
    const denyReason = (out: string) => JSON.parse(out).hookSpecificOutput.permissionDecisionReason;
    const blockReason = (out: string) => JSON.parse(out).reason;
    // The same hook report from two runs (Claude Code's dispatch, then the tool): only its timing ("(0.1 s)") may differ.
    const untimed = (text: string) => text.replace(/\(\d+(?:\.\d+)? s\)/g, '(… s)');

    // For each event the settings register: what Claude Code sends, and what Switchboard must answer.
    const cases: Record<
      string,
      { event: Record<string, unknown>; check(stdout: string, stderr: string): Promise<void> }[]
    > = {
      PreToolUse: [
        {
          event: { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } },
          check: async (stdout) => {
            const tool = await answer(h, 'hook.pre_tool', { tool: 'Bash', params: { command: 'rm -rf build' } });
            expect(JSON.parse(stdout).hookSpecificOutput.permissionDecision).toBe('deny');
            expect({ ...tool, reason: untimed(String(tool.reason)) }).toEqual({
              allow: false,
              reason: untimed(denyReason(stdout)),
            });
            expect(tool.reason).toContain('shell deletes are not allowed here');
          },
        },
      ],
      PostToolUse: [
        {
          event: { tool_name: 'Edit', tool_input: { file_path: 'a.ts' }, tool_response: { ok: true } },
          check: async (stdout) => {
            const tool = await answer(h, 'hook.post_tool', {
              tool: 'Edit',
              params: { file_path: 'a.ts' },
              result: { ok: true },
            });
            expect(JSON.parse(stdout).decision).toBe('block');
            expect({ ...tool, reason: untimed(String(tool.reason)) }).toEqual({
              processed: true,
              allow: false,
              reason: untimed(blockReason(stdout)),
            });
            expect(tool.reason).toContain('bad.txt must not exist');
          },
        },
        {
          event: { tool_name: 'TodoWrite', tool_input: { todos }, tool_response: {} },
          check: async (stdout) => {
            const tool = await answer(h, 'hook.todo_write', { todos });
            expect({ ...tool, reason: untimed(String(tool.reason)) }).toEqual({
              processed: true,
              allow: false,
              reason: untimed(blockReason(stdout)),
            });
            expect(tool.reason).toContain('mark one todo in_progress');
          },
        },
      ],
      UserPromptSubmit: [
        {
          event: { prompt: 'fix the bug' },
          check: async (stdout, stderr) => {
            const tool = await answer(h, 'hook.user_prompt', { prompt: 'fix the bug', context: {} });
            expect(stdout).toBe('');
            expect(tool.reason).toContain('noted by the project');
            expect(stderr).toContain('noted by the project');
          },
        },
      ],
      // No hook tool stands for these (ClaudeBench's hook.agent_stop); hook dispatch blocks on a failing check.
      ...Object.fromEntries(
        ['Stop', 'SubagentStop'].map((name) => [
          name,
          [
            {
              event: { stop_hook_active: false },
              check: async (stdout: string) => {
                expect(JSON.parse(stdout)).toMatchObject({
                  decision: 'block',
                  reason: expect.stringContaining('remove bad.txt before stopping'),
                });
              },
            },
          ],
        ]),
      ),
      // Events where a failure cannot block: the project's hooks run, and what they said is on stderr only.
      ...Object.fromEntries(
        [
          ['Notification', { message: 'Claude needs your permission to use Bash' }],
          ['SessionStart', { source: 'startup' }],
          ['PreCompact', { trigger: 'manual', custom_instructions: '' }],
          ['SessionEnd', { reason: 'logout' }],
        ].map(([name, fields]) => [
          name,
          [
            {
              event: fields as Record<string, unknown>,
              check: async (stdout: string, stderr: string) => {
                expect(stdout).toBe('');
                expect(stderr).toContain('noted by the project');
              },
            },
          ],
        ]),
      ),
    };

    expect(Object.keys(SETTINGS.hooks).sort()).toEqual(Object.keys(cases).sort());
    for (const [name, groups] of Object.entries(SETTINGS.hooks)) {
      // Their matchers send every tool (`*`) or every event (``) to the one command.
      for (const group of groups) {
        expect(['*', ''], name).toContain(group.matcher);
        expect(group.hooks.map((x) => x.type)).toEqual(['command']);
      }
      for (const { event, check } of cases[name]) {
        const r = await runHookCommand(dispatch, root, { ...base, hook_event_name: name, ...event });
        expect(r.code, `${name}: ${r.stderr}`).toBe(0);
        await check(r.stdout, r.stderr);
      }
    }
  }, 120_000);

  it('keep everything when `switchboard install claude-code` adds its hooks, and come back as they were on uninstall', async () => {
    const root = tempProject();
    writeFiles(root, { '.claude/settings.json': SETTINGS_TEXT });
    const file = join(root, '.claude', 'settings.json');
    const installed = await runCli(root, ['install', 'claude-code']);
    expect(installed.code, installed.stderr).toBe(0);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    // Theirs first, unchanged; Switchboard's added after them.
    for (const [name, groups] of Object.entries(SETTINGS.hooks))
      expect(after.hooks[name].slice(0, groups.length), name).toEqual(groups);
    expect(after.hooks.UserPromptSubmit.slice(SETTINGS.hooks.UserPromptSubmit.length)).toEqual([
      { matcher: '', hooks: [{ type: 'command', command: expect.stringMatching(/ hook user-prompt-submit$/) }] },
    ]);
    expect(after.hooks.PreToolUse.slice(SETTINGS.hooks.PreToolUse.length)).toEqual([
      { matcher: 'Skill', hooks: [{ type: 'command', command: expect.stringMatching(/ hook pre-tool-use$/) }] },
    ]);
    expect(after.permissions.allow.slice(0, SETTINGS.permissions.allow.length)).toEqual(SETTINGS.permissions.allow);
    expect(after.permissions.allow).toContain('mcp__switchboard__script__start');
    expect(after.outputStyle).toBe('enhanced-expert-debate');

    const again = await runCli(root, ['install', 'claude-code']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(after);

    const removed = await runCli(root, ['uninstall', 'claude-code']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(SETTINGS);
  }, 60_000);
});

/** Our stand-in for ClaudeBench's hook relay (scripts/claude_code_hooks.py): same requests, same exit codes. */
const RELAY = [process.execPath, join(ROOT, 'test/fixtures/claudebench-format/hook-relay.mjs')];

/** POST one JSON-RPC request to `url`/rpc, as ClaudeBench's clients do (no token: a loopback hub without any). */
async function rpc(url: string, method: string, params: unknown, id: number | string = 1) {
  const res = await fetch(`${url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method, params, id }),
  });
  return { status: res.status, answer: (await res.json()) as { result?: any; error?: any; id: unknown } };
}

/** The result of a method; fails the test with the JSON-RPC error when there is one. */
async function result(url: string, method: string, params: unknown): Promise<any> {
  const { answer } = await rpc(url, method, params);
  if (answer.error) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
  return answer.result;
}

describe("ClaudeBench's JSON-RPC endpoint, turned on, on a real hub over HTTP", () => {
  let server: HttpServerProcess;
  let root: string;
  beforeAll(async () => {
    root = guardedProject();
    writeFiles(root, { '.switchboard/config.toml': '[compat]\nclaudebench_rpc = true\n' });
    server = await startHttpServer(root, [], {}, { handlers: [] });
  }, 30_000);
  afterAll(() => server?.stop());

  it('answers every method of its contract in the shape the contract gives', async () => {
    const url = server.url;
    const envelope = jsonValidator({ ...CONTRACT.definitions.jsonrpcResponse });
    if (!envelope.ok) throw new Error(envelope.message);
    // Params for each method in the contract, from its required ones: ids come from the calls before.
    const ids: Record<string, string> = {};
    const samples: Record<string, () => Record<string, unknown>> = {
      'system.register': () => ({ id: 'contract-worker', roles: ['worker'] }),
      'system.heartbeat': () => ({ instanceId: 'contract-worker' }),
      'task.create': () => ({ text: 'from the contract' }),
      'task.update': () => ({ id: ids.task, updates: { text: 'updated', priority: 60 } }),
      'task.assign': () => ({ taskId: ids.task, instanceId: 'contract-worker' }),
      'task.complete': () => ({ id: ids.task, result: { ok: true } }),
      'hook.pre_tool': () => ({ tool: 'Read', params: { file_path: 'a.ts' } }),
      'hook.post_tool': () => ({ tool: 'Edit', result: { ok: true } }),
      'hook.user_prompt': () => ({ prompt: 'fix the bug', context: {} }),
      'hook.todo_write': () => ({ todos: [{ content: 'ship', status: 'in_progress' }] }),
      'system.health': () => ({}),
      'system.get_state': () => ({}),
      'system.metrics': () => ({}),
      'mcp.tool.execute': () => ({ tool: 'system.health', params: {} }),
      'mcp.tool.list': () => ({}),
    };
    const order = Object.keys(samples);
    expect([...order].sort()).toEqual(Object.keys(CONTRACT.events).sort());
    for (const [i, name] of order.entries()) {
      const params = samples[name]();
      expect(Object.keys(params), name).toEqual(expect.arrayContaining(paramsOf(name).required ?? []));
      const { status, answer } = await rpc(url, name, params, i + 1);
      expect(status, name).toBe(200);
      expect(envelope.validate(answer), `${name}: ${JSON.stringify(answer)}`).toBe(true);
      expect(answer.id).toBe(i + 1);
      expect(answer.error, name).toBeUndefined();
      // Task ids are Switchboard's (t- and 16 base32 characters), not the contract's t-<digits>: the one thing it says
      // that Switchboard answers otherwise (docs/coming-from-claudebench.md).
      const differs = name === 'task.create' ? ['pattern /id'] : [];
      if (CONTRACT.events[name].response)
        expect(resultErrors(name, answer.result), `${name} ${JSON.stringify(answer.result)}`).toEqual(differs);
      if (name === 'task.create') ids.task = answer.result.id;
    }
    // What the answers say, beyond their shape: the task went through assign and complete, the tools are listed.
    expect((await result(url, 'task.list', { status: 'completed' })).tasks.map((t: any) => t.text)).toEqual([
      'updated',
    ]);
    const tools = (await result(url, 'mcp.tool.list', {})).tools.map((t: any) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['task__claim', 'hook__pre_tool', 'system__health']));
  });

  it('gives the relay, for each event their settings register, what ClaudeBench’s server gives it, or refuses by name', async () => {
    const env = { CLAUDEBENCH_RPC_URL: `${server.url}/rpc` };
    const base = { session_id: 'relay-session-1', transcript_path: join(root, 'none.jsonl'), cwd: root };
    const todos = [{ content: 'ship', status: 'pending', activeForm: 'Shipping' }];
    const refused = (method: string) => (r: { code: number | null; stdout: string; stderr: string }) => {
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stderr)).toEqual({
        error: expect.stringContaining(`${method} has no equivalent in Switchboard`),
        code: -32601,
      });
    };
    type Run = { code: number | null; stdout: string; stderr: string };
    const cases: Record<string, { event: Record<string, unknown>; check(r: Run): void | Promise<void> }[]> = {
      PreToolUse: [
        {
          event: { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } },
          check: (r) => {
            expect(r.code).toBe(2);
            expect(JSON.parse(r.stdout)).toMatchObject({
              blocked: true,
              reason: expect.stringContaining('shell deletes are not allowed here'),
            });
          },
        },
        {
          event: { tool_name: 'Read', tool_input: { file_path: 'a.ts' } },
          check: (r) => expect([r.code, r.stdout]).toEqual([0, '']),
        },
      ],
      PostToolUse: [
        {
          event: { tool_name: 'Edit', tool_input: { file_path: 'a.ts' }, tool_response: { ok: true } },
          check: (r) => {
            expect(r.code).toBe(0);
            expect(JSON.parse(r.stdout)).toEqual({ processed: true, notifications: [] });
          },
        },
        {
          event: { tool_name: 'TodoWrite', tool_input: { todos }, tool_response: {} },
          check: (r) => {
            expect(r.code).toBe(0);
            expect(JSON.parse(r.stdout)).toEqual({ processed: true, summary: {} });
          },
        },
      ],
      UserPromptSubmit: [
        {
          event: { prompt: '/test:random 5 apples' },
          check: (r) => {
            expect(r.code).toBe(0);
            expect(JSON.parse(r.stdout).modified).toContain('mcp__switchboard__script__start');
          },
        },
      ],
      SessionStart: [
        {
          event: { source: 'startup' },
          check: async (r) => {
            expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
            // Registered as the relay names its instance, with its role.
            const state = await result(server.url, 'system.get_state', {});
            expect(state.instances).toEqual(
              expect.arrayContaining([expect.objectContaining({ id: 'claude-code-relay-se', roles: ['claude-code'] })]),
            );
          },
        },
      ],
      SessionEnd: [{ event: { reason: 'logout' }, check: refused('system.unregister') }],
      Stop: [{ event: { stop_hook_active: false }, check: refused('hook.agent_stop') }],
      SubagentStop: [{ event: { stop_hook_active: false }, check: refused('hook.agent_stop') }],
      Notification: [{ event: { message: 'Claude needs your permission' }, check: refused('hook.notification') }],
      PreCompact: [{ event: { trigger: 'manual', custom_instructions: '' }, check: refused('hook.pre_compact') }],
    };
    expect(Object.keys(SETTINGS.hooks).sort()).toEqual(Object.keys(cases).sort());
    for (const [name, list] of Object.entries(cases))
      for (const { event, check } of list) {
        const r = await runHookCommand(RELAY, root, { ...base, hook_event_name: name, ...event }, env);
        try {
          await check(r);
        } catch (err) {
          throw new Error(`${name} ${JSON.stringify(event)}: ${(err as Error).message}\n${r.stdout}${r.stderr}`);
        }
      }
    // Each answered event went through the pipeline as a call of Switchboard's tool, and is in the audit trail.
    const audit = await result(server.url, 'mcp.tool.execute', { tool: 'system.audit', params: { limit: 100 } });
    const seen = new Set(audit.result.records.map((r: any) => `${r.capability} ${r.transport}`));
    for (const tool of ['hook.pre_tool', 'hook.post_tool', 'hook.todo_write', 'hook.user_prompt', 'system.register'])
      expect(seen, tool).toContain(`${tool} rest`);
  }, 120_000);

  it('serves its task calls and attachment methods with its own parameter names and answer shapes', async () => {
    const url = server.url;
    const call = (method: string, params: unknown) => result(url, method, params);
    expect(await call('system.register', { id: 'worker-1', roles: ['worker'] })).toEqual({ registered: true });
    const low = await call('task.create', { text: 'low', priority: 10 });
    const high = await call('task.create', { text: 'high', priority: 90, metadata: { area: 'docs' } });
    const mid = await call('task.create', { text: 'mid', priority: 50 });

    // task.list: its orderBy, order, offset and limit; totalCount and hasMore (the board may hold other tests' tasks).
    const mine = (tasks: any[]) => tasks.filter((t) => [low.id, high.id, mid.id].includes(t.id));
    const query = { status: 'pending', orderBy: 'priority', order: 'asc' };
    const all = await call('task.list', query);
    expect(mine(all.tasks).map((t: any) => t.text)).toEqual(['low', 'mid', 'high']);
    const page = await call('task.list', { ...query, offset: 1, limit: 1 });
    expect(page.tasks).toEqual([all.tasks[1]]);
    expect([page.totalCount, page.hasMore]).toEqual([all.totalCount, true]);
    const oldest = await call('task.list', { orderBy: 'createdAt', order: 'asc' });
    expect(mine(oldest.tasks).map((t: any) => t.id)).toEqual([low.id, high.id, mid.id]);

    // task.assign / task.unassign take taskId, and answer ClaudeBench's records of it.
    const assigned = await call('task.assign', { taskId: low.id, instanceId: 'worker-1' });
    expect(assigned).toEqual({ taskId: low.id, instanceId: 'worker-1', assignedAt: expect.any(String) });
    expect((await call('task.list', { assignedTo: 'worker-1' })).tasks[0]).toMatchObject({ status: 'pending' });
    const unassigned = await call('task.unassign', { taskId: low.id });
    expect(unassigned).toEqual({ taskId: low.id, previousAssignment: 'worker-1', unassignedAt: expect.any(String) });

    // Attachments, markdown among them, then task.claim hands them to the worker with the task.
    const attached = await call('task.create_attachment', {
      taskId: high.id,
      key: 'plan',
      type: 'markdown',
      content: '# Plan\n- write it',
    });
    expect(attached).toEqual({
      id: expect.any(String),
      taskId: high.id,
      key: 'plan',
      type: 'markdown',
      createdAt: expect.any(String),
    });
    await call('task.create_attachment', { taskId: high.id, key: 'analysis', type: 'json', value: { risk: 'low' } });
    const listed = await call('task.list_attachments', { taskId: high.id });
    expect([listed.totalCount, listed.hasMore]).toEqual([2, false]);
    expect(listed.attachments.map((a: any) => [a.key, a.type, a.content ?? a.value])).toEqual([
      ['analysis', 'json', { risk: 'low' }],
      ['plan', 'markdown', '# Plan\n- write it'],
    ]);
    expect((await call('task.list_attachments', { taskId: high.id, type: 'markdown' })).attachments).toHaveLength(1);
    const plan = await call('task.get_attachment', { taskId: high.id, key: 'plan' });
    expect(plan).toMatchObject({ id: attached.id, type: 'markdown', content: '# Plan\n- write it' });

    const claimed = await call('task.claim', { workerId: 'worker-1', maxTasks: 1 });
    expect(claimed).toMatchObject({
      claimed: true,
      taskId: high.id,
      task: { status: 'in_progress', assignedTo: 'worker-1', attachmentCount: 2 },
    });
    expect(claimed.task.attachments.plan).toMatchObject({ type: 'markdown', value: '# Plan\n- write it' });

    // task.update takes `updates`, and merges metadata as ClaudeBench does.
    const updated = await call('task.update', {
      id: high.id,
      updates: { text: 'high, reworded', metadata: { by: 'w' } },
    });
    expect(updated).toMatchObject({ id: high.id, text: 'high, reworded', status: 'in_progress', priority: 90 });
    const [row] = mine((await call('task.list', { status: 'in_progress' })).tasks);
    expect(row.metadata).toEqual({ area: 'docs', by: 'w' });

    // task.complete with taskId, workerId and result.
    const done = await call('task.complete', { taskId: high.id, workerId: 'worker-1', result: { pages: 3 } });
    expect(done).toEqual({ id: high.id, status: 'completed', completedAt: expect.any(String) });
    expect(mine((await call('task.list', { status: 'completed' })).tasks)).toMatchObject([{ result: { pages: 3 } }]);

    // What has no equivalent is refused naming the field.
    const refusal = async (method: string, params: unknown, field: string, text: string) => {
      const { answer } = await rpc(url, method, params);
      expect(answer.error, method).toMatchObject({ code: -32602, data: { issues: [{ path: field }] } });
      expect(answer.error.message).toContain(text);
    };
    await refusal(
      'task.create_attachment',
      { taskId: mid.id, key: 'site', type: 'url', url: 'https://example.com' },
      'type',
      "'url' has no equivalent",
    );
    await refusal('task.update', { id: mid.id, updates: { status: 'completed' } }, 'updates.status', 'lifecycle');
    await refusal('task.create_attachment', { taskId: mid.id, key: 'k', type: 'markdown' }, 'content', 'content');
  });
});

describe("ClaudeBench's JSON-RPC endpoint, off (the default)", () => {
  it('is absent: 404 saying how to turn it on, and the relay exits 1 with that message', async () => {
    const root = tempProject();
    const server = await startHttpServer(root, [], {}, { handlers: [] });
    try {
      const { status, answer } = await rpc(server.url, 'system.health', {});
      expect(status).toBe(404);
      expect(answer.error.message).toContain('[compat] claudebench_rpc = true');
      const r = await runHookCommand(
        RELAY,
        root,
        { session_id: 's-1', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: {} },
        { CLAUDEBENCH_RPC_URL: `${server.url}/rpc` },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('HTTP 404');
      expect(r.stderr).toContain('claudebench_rpc = true');
    } finally {
      await server.stop();
    }
  }, 60_000);
});
