// The built-in tools that take long run as MCP tasks for a 2026-07-28 client that declared the tasks extension, and
// tasks/cancel stops the work itself: a script's shell step (its process is gone) and a sub-agent's turn (the
// session says cancelled), each driven over HTTP the way a client does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { TASKS_EXTENSION } from '../../src/core/mcp-tasks-extension.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { gate } from '../helpers/gate.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { gone } from '../helpers/proc.ts';
import { rpc2026 } from '../helpers/rpc2026.ts';
import { until } from '../helpers/until.ts';
import { agentHub } from '../sources/agents/agent-hub.ts';
import { projectScripts } from '../sources/scripts/helpers.ts';

const TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function serve(hub: TestHub): Promise<HttpHandle> {
  open.push(hub);
  const http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
  open.push(http);
  return http;
}

const call = (http: HttpHandle, name: string, args: Record<string, unknown>) =>
  rpc2026(http.url, 'tools/call', { name, arguments: args }, {}, TASKS);
const taskMethod = (http: HttpHandle, method: string, taskId: string) =>
  rpc2026(http.url, method, { taskId }, {}, TASKS);

it("runs script__start as a task, and tasks/cancel stops the script's running command", async () => {
  const hub = await testHub();
  const src = join(import.meta.dirname, '../../src/index.ts');
  projectScripts(hub.dir, {
    'nl/slow.md': '---\ndescription: runs a long command\n---\n# Slow\n',
    'compiled/slow.mjs': `import { auto } from ${JSON.stringify(src)};
export default function* () {
  yield auto('echo $$ > command.pid; sleep 60');
}`,
  });
  const http = await serve(hub);
  const { message } = await call(http, 'script__start', { name: 'slow' });
  expect(message.result).toMatchObject({ resultType: 'task', status: 'working' });
  const pidFile = join(hub.dir, 'command.pid');
  const pid = await until(
    () => {
      try {
        return Number(readFileSync(pidFile, 'utf8').trim()) || undefined;
      } catch {
        return undefined;
      }
    },
    { what: 'the command to start' },
  );
  expect((await taskMethod(http, 'tasks/cancel', message.result.taskId)).message.result).toMatchObject({
    resultType: 'complete',
  });
  await until(() => gone(pid), { what: 'the cancelled command to stop' });
  expect((await taskMethod(http, 'tasks/get', message.result.taskId)).message.result).toMatchObject({
    status: 'cancelled',
  });
});

it('runs a long tool reached through catalog__call as a task too', async () => {
  const hub = await testHub();
  const src = join(import.meta.dirname, '../../src/index.ts');
  projectScripts(hub.dir, {
    'nl/slow.md': '---\ndescription: runs a command for a while\n---\n# Slow\n',
    'compiled/slow.mjs': `import { auto } from ${JSON.stringify(src)};\nexport default function* () { yield auto('sleep 0.4; echo slept'); }\n`,
  });
  const http = await serve(hub);
  const { message } = await call(http, 'catalog__call', { name: 'script__start', arguments: { name: 'slow' } });
  expect(message.result).toMatchObject({ resultType: 'task', status: 'working' });
  const done = await until(
    async () => {
      const got = (await taskMethod(http, 'tasks/get', message.result.taskId)).message.result;
      return got.status === 'completed' ? got : undefined;
    },
    { what: 'the task to complete' },
  );
  expect(JSON.stringify(done.result)).toContain('slept');
});

it("runs agent__start as a task, and tasks/cancel ends the agent's turn", async () => {
  const model = gate();
  const api: FakeAnthropic = await startFakeAnthropic({
    replies: [{ content: [{ type: 'text', text: 'never seen' }], hold: model.opened }],
  });
  open.push({
    close: () => {
      model.open();
      return api.close();
    },
  });
  const hub = await agentHub({ anthropic: api.url, config: '[agents]\ndefault_provider = "anthropic"' });
  const http = await serve(hub);
  const { message } = await call(http, 'agent__start', { session_name: 'long', prompt: 'think for a while' });
  expect(message.result).toMatchObject({ resultType: 'task', status: 'working' });
  await until(() => api.messages().length > 0, { what: 'the turn to reach the model' });
  await taskMethod(http, 'tasks/cancel', message.result.taskId);
  const status = await until(
    async () => {
      const out = await hub.call('agent.status', { session_name: 'long' });
      const value = out.ok ? (out.value as { status?: string }) : undefined;
      return value?.status === 'cancelled' ? value : undefined;
    },
    { what: 'the session to say cancelled' },
  );
  expect(status).toMatchObject({ status: 'cancelled' });
  expect((await taskMethod(http, 'tasks/get', message.result.taskId)).message.result).toMatchObject({
    status: 'cancelled',
  });
});
