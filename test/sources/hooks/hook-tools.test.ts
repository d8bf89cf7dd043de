// The hook tools (ClaudeBench's hook__pre_tool, hook__post_tool, hook__user_prompt, hook__todo_write, issue 18):
// Switchboard's own agent-hook decisions — a plugin PreToolUse hook that exits 2 denies, a failing PostToolUse check
// blocks, a compiled script is rerouted to script.start — answered as tools through the real pipeline (and once over
// the official MCP client), with real plugin commands. Inputs and answers are checked against ClaudeBench's fields
// and answer shapes as test/fixtures/claudebench-format/hooks.ts records them (test/originals/claudebench.test.ts
// checks those against ClaudeBench's own wire contract).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonValidator } from '../../../src/core/ajv.ts';
import type { Principal } from '../../../src/core/context.ts';
import { serveHttp } from '../../../src/serve/http.ts';
import {
  answerSchema,
  CLAUDEBENCH_HOOKS,
  CLAUDEBENCH_TODO_STATUSES,
  type ClaudeBenchHook,
} from '../../fixtures/claudebench-format/hooks.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { pluginProject, writePlugin } from '../../helpers/plugins.ts';

const agent: Principal = { id: 'agent-1', roles: ['agent'], kind: 'token' };

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

/** A project with a Han-style PreToolUse guard on Bash, a check after Edit|Write, and one after TodoWrite. */
async function guardedHub(): Promise<TestHub> {
  const root = pluginProject();
  writePlugin(
    root,
    'guard',
    `hooks:\n  no-shell-writes:\n    event: PreToolUse\n    tool_filter: [Bash]\n    command: 'grep -q "rm -rf" || exit 0; echo "shell deletes are not allowed here" >&2; exit 2'\n` +
      `  soft:\n    event: PreToolUse\n    tool_filter: [Read]\n    command: 'echo "reading is logged" >&2; exit 1'\n`,
    { file: 'han-plugin.yml' },
  );
  writePlugin(
    root,
    'checks',
    `hooks:\n  no-bad-file:\n    event: PostToolUse:Edit|Write\n    command: 'test ! -e bad.txt || { echo "bad.txt must not exist"; exit 1; }'\n` +
      `  one-in-progress:\n    event: PostToolUse:TodoWrite\n    command: 'grep -q in_progress || { echo "mark one todo in_progress"; exit 1; }'\n`,
  );
  hub = await testHub({ cwd: root });
  await hub.ready();
  return hub;
}

async function answer(h: TestHub, name: string, input: unknown) {
  const out = await h.call(name, input, agent);
  if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
  return out.value as Record<string, unknown>;
}

/** The JSON Schema of a hook tool's input, as `tools/list` shows it. */
function inputSchema(h: TestHub, name: ClaudeBenchHook): { properties: Record<string, any> } {
  const entry = h.services.registry.list().find((e) => e.capability.name === name);
  if (!entry) throw new Error(`${name} is not registered`);
  return entry.tool.inputSchema as { properties: Record<string, any> };
}

/** Switchboard's input fields of a hook tool are exactly ClaudeBench's (order aside). */
function expectClaudeBenchFields(h: TestHub, name: ClaudeBenchHook): void {
  expect(Object.keys(inputSchema(h, name).properties).sort()).toEqual([...CLAUDEBENCH_HOOKS[name].fields].sort());
}

/** Whether `value` has the shape of ClaudeBench's answer to `name`. */
function validResult(name: ClaudeBenchHook, value: unknown): boolean {
  const v = jsonValidator(answerSchema(CLAUDEBENCH_HOOKS[name].answer));
  if (!v.ok) throw new Error(v.message);
  return v.validate(value) as boolean;
}

describe('hook.pre_tool', () => {
  it('denies a tool a plugin PreToolUse hook exits 2 on, with its output as the reason; allows the rest', async () => {
    const h = await guardedHub();
    const denied = await answer(h, 'hook.pre_tool', { tool: 'Bash', params: { command: 'rm -rf build' } });
    expect(denied.allow).toBe(false);
    expect(denied.reason).toContain('Bash was denied by guard/no-shell-writes (exit code 2)');
    expect(denied.reason).toContain('shell deletes are not allowed here');
    expect(await answer(h, 'hook.pre_tool', { tool: 'Bash', params: { command: 'ls' } })).toEqual({ allow: true });
    expect(await answer(h, 'hook.pre_tool', { tool: 'Edit', params: { file_path: 'a.ts' } })).toEqual({
      allow: true,
    });
    // A failing hook that does not exit 2 does not deny; what it said comes back as the reason.
    const soft = await answer(h, 'hook.pre_tool', { tool: 'Read', params: { file_path: 'a.ts' } });
    expect(soft).toMatchObject({ allow: true, reason: expect.stringContaining('reading is logged') });
    for (const a of [denied, soft]) expect(validResult('hook.pre_tool', a)).toBe(true);
  });

  it('sends a compiled script called as a skill to script.start', async () => {
    const h = await guardedHub();
    const out = await answer(h, 'hook.pre_tool', { tool: 'Skill', params: { skill: 'test:random', args: '7' } });
    expect(out).toEqual({
      allow: false,
      reason: expect.stringContaining('call `mcp__switchboard__script__start` with name="test:random" arguments="7"'),
    });
  });

  it("takes ClaudeBench's input and refuses bad input naming the field", async () => {
    const h = await guardedHub();
    expectClaudeBenchFields(h, 'hook.pre_tool');
    const all = { tool: 'Bash', params: null, sessionId: 's', instanceId: 'i', timestamp: 1, metadata: { a: 1 } };
    expect(Object.keys(all)).toEqual(CLAUDEBENCH_HOOKS['hook.pre_tool'].fields);
    expect(await answer(h, 'hook.pre_tool', all)).toEqual({ allow: true });
    for (const [input, field] of [
      [{ params: {} }, 'tool'],
      [{ tool: '', params: {} }, 'tool'],
      [{ tool: 'Bash' }, 'params'],
      [{ tool: 'Bash', params: {}, bogus_field: 1 }, 'bogus_field'],
    ] as const)
      expect(await h.call('hook.pre_tool', input, agent)).toMatchObject({
        ok: false,
        error: { code: 'INVALID_INPUT', message: expect.stringContaining(field) },
      });
  });
});

describe('hook.post_tool', () => {
  it('blocks after a tool when a PostToolUse check fails, with the check output; passes when it passes', async () => {
    const h = await guardedHub();
    const edit = { tool: 'Edit', params: { file_path: 'a.ts' }, result: { ok: true } };
    expect(await answer(h, 'hook.post_tool', edit)).toEqual({ processed: true, allow: true });
    writeFileSync(join(h.dir, 'bad.txt'), 'x');
    const blocked = await answer(h, 'hook.post_tool', edit);
    expect(blocked).toMatchObject({
      processed: true,
      allow: false,
      reason: expect.stringContaining('bad.txt must not exist'),
    });
    expect(validResult('hook.post_tool', blocked)).toBe(true);
    // Another tool's event runs no Edit|Write check.
    expect(await answer(h, 'hook.post_tool', { tool: 'Bash', params: {}, result: 'ok' })).toEqual({
      processed: true,
      allow: true,
    });
    rmSync(join(h.dir, 'bad.txt'));
    expect(await answer(h, 'hook.post_tool', edit)).toEqual({ processed: true, allow: true });
  });

  it("takes ClaudeBench's input", async () => {
    const h = await guardedHub();
    expectClaudeBenchFields(h, 'hook.post_tool');
    const all = {
      tool: 'Bash',
      params: {},
      result: null,
      sessionId: 's',
      instanceId: 'i',
      timestamp: 1,
      executionTime: 5,
      success: true,
    };
    expect(Object.keys(all)).toEqual(CLAUDEBENCH_HOOKS['hook.post_tool'].fields);
    expect(await answer(h, 'hook.post_tool', all)).toEqual({ processed: true, allow: true });
    expect(await h.call('hook.post_tool', { tool: 'Bash' }, agent)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringContaining('result') },
    });
  });
});

describe('hook.todo_write', () => {
  it('runs the PostToolUse:TodoWrite checks on the todo list the agent wrote', async () => {
    const h = await guardedHub();
    const todos = [
      { content: 'write tests', status: 'pending', activeForm: 'Writing tests' },
      { content: 'ship', status: 'pending' },
    ];
    const blocked = await answer(h, 'hook.todo_write', { todos, sessionId: 's1' });
    expect(blocked).toMatchObject({
      processed: true,
      allow: false,
      reason: expect.stringContaining('mark one todo in_progress'),
    });
    expect(validResult('hook.todo_write', blocked)).toBe(true);
    todos[0].status = 'in_progress';
    expect(await answer(h, 'hook.todo_write', { todos, previousTodos: [] })).toEqual({ processed: true, allow: true });
    expectClaudeBenchFields(h, 'hook.todo_write');
    expect(inputSchema(h, 'hook.todo_write').properties.todos.items.properties.status.enum).toEqual(
      CLAUDEBENCH_TODO_STATUSES,
    );
    expect(await h.call('hook.todo_write', { todos: [{ content: 'x', status: 'done' }] }, agent)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringContaining('todos.0.status') },
    });
  });
});

describe('hook.user_prompt', () => {
  it('answers the prompt with the instruction to start a compiled script, and nothing for a plain prompt', async () => {
    const h = await guardedHub();
    const routed = await answer(h, 'hook.user_prompt', { prompt: '/test:random 5 apples', context: {} });
    expect(routed.modified).toMatch(/^\/test:random 5 apples\n\n/);
    expect(routed.modified).toContain(
      'call `mcp__switchboard__script__start` with name="test:random" arguments="5 apples"',
    );
    expect(validResult('hook.user_prompt', routed)).toBe(true);
    expect(await answer(h, 'hook.user_prompt', { prompt: 'fix the bug', context: { enhance: true } })).toEqual({});
    expectClaudeBenchFields(h, 'hook.user_prompt');
    expect(await h.call('hook.user_prompt', { prompt: '' }, agent)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringContaining('prompt') },
    });
  });
});

describe('over MCP', () => {
  it('lists the four hook tools under ClaudeBench names and answers a call through the official client', async () => {
    const h = await guardedHub();
    const http = await serveHttp(h, { host: '127.0.0.1', port: 0 });
    const client = new Client({ name: 'another-hub', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`)));
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining(['hook__pre_tool', 'hook__post_tool', 'hook__user_prompt', 'hook__todo_write']),
      );
      const r = await client.callTool({
        name: 'hook__pre_tool',
        arguments: { tool: 'Bash', params: { command: 'rm -rf /' } },
      });
      expect(r.structuredContent).toMatchObject({ allow: false });
    } finally {
      await client.close();
      await http.close();
    }
  });
});
