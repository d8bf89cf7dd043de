// MCP tasks across two `switchboard serve` processes on one Redis: a task made on one instance is read, answered
// and cancelled through the other (the holder hears the cancel and the answers), and a task whose instance died
// is ended by the other once that instance's lease runs out. Driven by a client built on the official MCP SDK.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startHttpServer } from '../helpers/cli.ts';
import { alive, gone, pidFrom } from '../helpers/proc.ts';
import { cleanedAfterEach, REDIS_URL, redisProject, testPrefix } from '../helpers/redis.ts';
import { tasksClient } from '../helpers/tasks-client.ts';
import { until } from '../helpers/until.ts';
import { projectScripts } from '../sources/scripts/helpers.ts';

const SLOW =
  "import { auto } from 'switchboard';\nexport default function* () { yield auto('echo $$ > command.pid; sleep 60'); }\n";

describe('MCP tasks on two instances sharing Redis', () => {
  const { servers, dirs, prefixes } = cleanedAfterEach();

  async function pair() {
    const prefix = testPrefix();
    prefixes.push(prefix);
    const dir = redisProject(REDIS_URL, prefix);
    dirs.push(dir);
    projectScripts(dir, { 'nl/slow.md': '# Slow\n', 'compiled/slow.mjs': SLOW });
    const [a, b] = await Promise.all([startHttpServer(dir), startHttpServer(dir)]);
    servers.push(a, b);
    const client = await tasksClient(a.url);
    return { dir, a, b, client };
  }

  it('reads and cancels through one instance a task that runs on the other: the work stops', async () => {
    const { dir, b, client } = await pair();
    const { task } = await client.call('script__start', { name: 'slow' });
    expect(task).toMatchObject({ status: 'working' });
    const pid = await pidFrom(join(dir, 'command.pid'));
    client.to.url = b.url;
    expect(await client.task('tasks/get', task.taskId)).toMatchObject({ taskId: task.taskId, status: 'working' });
    await client.task('tasks/cancel', task.taskId);
    // The cancel answered once the holder said the task ended: its command is stopped.
    expect(await client.task('tasks/get', task.taskId)).toMatchObject({ status: 'cancelled' });
    await until(() => gone(pid), { what: 'the command of the cancelled task to stop' });
    await client.close();
  });

  it('answers through one instance the question a task asks on the other', async () => {
    const { a, b, client } = await pair();
    const { task } = await client.call('fixture__elicit', {});
    expect(task).toMatchObject({ status: 'input_required' });
    client.to.url = b.url;
    const asked = await client.task('tasks/get', task.taskId);
    const [key, question] = Object.entries(asked.inputRequests as Record<string, any>)[0] ?? [];
    expect(question).toMatchObject({ method: 'elicitation/create', params: { message: 'What is your name?' } });
    await client.task('tasks/update', task.taskId, {
      inputResponses: { [key as string]: { action: 'accept', content: { name: 'Ada' } } },
    });
    client.to.url = a.url;
    const done = await client.reaches(task.taskId, 'completed');
    expect(done.result.structuredContent).toEqual({ action: 'accept', name: 'Ada' });
    await client.close();
  });

  it("ends a task whose instance died once that instance's lease runs out", async () => {
    const { dir, a, b, client } = await pair();
    const { task } = await client.call('script__start', { name: 'slow' });
    const pid = await pidFrom(join(dir, 'command.pid'));
    const exited = new Promise((r) => a.child.once('exit', r));
    a.child.kill('SIGKILL');
    await exited;
    try {
      client.to.url = b.url;
      const ended = await client.reaches(task.taskId, 'failed', { timeoutMs: 15_000 });
      expect(ended.error.message).toMatch(/ended it unfinished: it is gone/);
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      await client.close();
    }
  });
});
