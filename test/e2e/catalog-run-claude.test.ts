// End-to-end: the real `claude` binary (Claude Code 2.x) against a fake Anthropic Messages API, with Switchboard
// over stdio in `[catalog] exposure = "search"` and the reference "everything" server behind it. One turn runs a
// program with `catalog__run` (code mode, issue 33 §2) that calls the upstream tool twice and the task board once;
// the model reads only the program's value and console output, and the audit names each tool it called.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claude, everythingSearchProject, lastMessage, switchboardMcpConfig, toolUse } from '../helpers/claude-code.ts';
import { runCli } from '../helpers/cli.ts';
import { type RecordedRequest, startFakeAnthropic } from '../helpers/fake-anthropic.ts';

const PROGRAM = `const a: string = await tools["everything__get-sum"]({ a: 2, b: 3 });
const b: string = await tools["everything__get-sum"]({ a: 10, b: 20 });
const task = await tools.task__create({ text: "check the sums", priority: 60 });
console.log("sums done");
return { a, b, task: task.id };`;

describe('Claude Code runs code that calls tools, in one turn', () => {
  it('catalog__run calls everything__get-sum twice and task__create; the model reads the value', async () => {
    const project = everythingSearchProject('switchboard-run-claude-');
    const anthropic = await startFakeAnthropic({
      respond: (req) => {
        const last = lastMessage(req);
        if (last.includes('The sum of 10 and 20 is 30')) return 'Both sums are done.';
        return toolUse('mcp__switchboard__catalog__run', { code: PROGRAM });
      },
    });
    try {
      const events = await claude(
        project,
        'add 2 and 3, then 10 and 20, and file a task to check them',
        [
          '--mcp-config',
          switchboardMcpConfig(project),
          '--strict-mcp-config',
          '--allowedTools',
          'mcp__switchboard__catalog__run',
        ],
        anthropic,
      );
      expect(events.find((e) => e.type === 'result')).toMatchObject({
        subtype: 'success',
        result: 'Both sums are done.',
      });

      const turns = anthropic.messages();
      expect(turns[0].body.tools.map((t: { name: string }) => t.name)).toContain('mcp__switchboard__catalog__run');
      const last = turns.at(-1) as RecordedRequest;
      const results = (last.body.messages as { content: unknown }[])
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((b: { type?: string }) => b.type === 'tool_result')
        .map((b: { content: unknown }) => JSON.stringify(b.content));
      // One round trip: one tool result, with the program's value and console output.
      expect(results).toHaveLength(1);
      expect(results[0]).toContain('The sum of 2 and 3 is 5.');
      expect(results[0]).toContain('The sum of 10 and 20 is 30.');
      expect(results[0]).toContain('sums done');
      expect(results[0]).toMatch(/t-[0-9a-z]/);

      const audit = await runCli(project, ['audit', '--json']);
      const names = JSON.parse(audit.stdout).map((r: { capability: string }) => r.capability);
      expect(names.sort()).toEqual(['catalog.run', 'everything.get-sum', 'everything.get-sum', 'task.create']);
    } finally {
      await anthropic.close();
      rmSync(project, { recursive: true, force: true });
    }
  }, 150_000);
});
