// MCP tasks live in the store: a `switchboard serve` process restarted between a task's creation and the client's
// `tasks/get` still answers for it — with its outcome when its work had ended, and with a failure that says what
// happened when the hub stopped (SIGTERM) or died (SIGKILL) while the work ran. A script run and a sub-agent turn,
// driven by a client built on the official MCP SDK.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpServerProcess, startHttpServer, tempProject } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { alive, gone, pidFrom } from '../helpers/proc.ts';
import { type TasksClient, tasksClient } from '../helpers/tasks-client.ts';
import { until } from '../helpers/until.ts';
import { projectScripts, writeFiles } from '../sources/scripts/helpers.ts';

const made: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const thing of made.splice(0).reverse()) await thing.close();
});

async function serve(dir: string, env: Record<string, string> = {}): Promise<HttpServerProcess> {
  const server = await startHttpServer(dir, [], env, { handlers: [] });
  made.push({ close: () => server.stop() });
  return server;
}
async function client(url: string): Promise<TasksClient> {
  const c = await tasksClient(url);
  made.push(c);
  return c;
}

/** A project with one script whose automatic step runs `command`. */
function scriptProject(command: string): string {
  const dir = tempProject();
  projectScripts(dir, {
    'nl/work.md': '---\ndescription: runs a command\n---\n# Work\n',
    'compiled/work.mjs': `import { auto } from 'switchboard';\nexport default function* () {\n  yield auto(${JSON.stringify(command)});\n}\n`,
  });
  return dir;
}

describe('a task across a restart of the hub', () => {
  it("keeps a script task's outcome: the restarted hub answers tasks/get with it", async () => {
    const dir = scriptProject('sleep 0.3; echo built-it');
    const first = await serve(dir);
    const c = await client(first.url);
    const { task } = await c.call('script__start', { name: 'work' });
    expect(task).toMatchObject({ status: 'working' });
    const done = await c.reaches(task.taskId, 'completed');
    expect(JSON.stringify(done.result)).toContain('built-it');
    await first.stop();

    const second = await serve(dir);
    c.to.url = second.url;
    const after = await c.task('tasks/get', task.taskId);
    expect(after).toMatchObject({ taskId: task.taskId, status: 'completed', result: done.result });
  });

  it("keeps an agent turn's outcome across a restart", async () => {
    const api: FakeAnthropic = await startFakeAnthropic({
      replies: [{ content: [{ type: 'text', text: 'the answer is 42' }], delayMs: 400 }],
    });
    made.push(api);
    const dir = tempProject();
    writeFiles(join(dir, '.switchboard'), { 'config.toml': '[agents]\ndefault_provider = "anthropic"\n' });
    const env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' };
    const first = await serve(dir, env);
    const c = await client(first.url);
    const { task } = await c.call('agent__start', { session_name: 'thinker', prompt: 'what is the answer?' });
    expect(task).toMatchObject({ status: 'working' });
    const done = await c.reaches(task.taskId, 'completed');
    expect(JSON.stringify(done.result)).toContain('the answer is 42');
    await first.stop();

    const second = await serve(dir, env);
    c.to.url = second.url;
    expect(await c.task('tasks/get', task.taskId)).toMatchObject({ status: 'completed', result: done.result });
  });

  it('ends a task whose hub was killed while it ran as failed, saying so, when the next hub is asked', async () => {
    const dir = scriptProject('echo $$ > command.pid; sleep 60');
    const first = await serve(dir);
    const c = await client(first.url);
    const { task } = await c.call('script__start', { name: 'work' });
    const pid = await pidFrom(join(dir, 'command.pid'));
    made.push({ close: async () => void (alive(pid) && process.kill(pid, 'SIGKILL')) });
    const exited = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGKILL');
    await exited;

    const second = await serve(dir);
    c.to.url = second.url;
    const after = await c.task('tasks/get', task.taskId);
    expect(after).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(after.error.message).toMatch(/ended it unfinished: it is gone .*Call script__start again/);
    // Asked again, it says the same (it was stored ended, not judged anew).
    expect(await c.task('tasks/get', task.taskId)).toMatchObject({ status: 'failed', error: after.error });
  });

  it('ends the tasks running in a hub that is stopped (SIGTERM): the work stops, the task says why', async () => {
    const dir = scriptProject('echo $$ > command.pid; sleep 60');
    const first = await serve(dir);
    const c = await client(first.url);
    const { task } = await c.call('script__start', { name: 'work' });
    const pid = await pidFrom(join(dir, 'command.pid'));
    await first.stop();
    await until(() => gone(pid), { what: "the task's command to be stopped with its hub" });

    const second = await serve(dir);
    c.to.url = second.url;
    const after = await c.task('tasks/get', task.taskId);
    expect(after).toMatchObject({ status: 'failed' });
    expect(after.error.message).toMatch(/ended it unfinished: it stopped/);
  });
});
