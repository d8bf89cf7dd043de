// End-to-end: the real `claude` binary (Claude Code 2.x) against a fake Anthropic Messages API on 127.0.0.1, with
// Switchboard over stdio in `[catalog] exposure = "search"` and the reference "everything" server behind it. The
// model is offered only the catalog tools, and reaches the upstream tool through them: search → describe →
// call. The audit trail records the upstream tool's call under its own name.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { claude, everythingSearchProject, lastMessage, switchboardMcpConfig, toolUse } from '../helpers/claude-code.ts';
import { runCli } from '../helpers/cli.ts';
import { type RecordedRequest, startFakeAnthropic } from '../helpers/fake-anthropic.ts';

const CATALOG_TOOLS = ['search', 'describe', 'call', 'run'].map((t) => `mcp__switchboard__catalog__${t}`);

describe('Claude Code finds and calls an upstream tool through the catalog', () => {
  it('search → describe → call of everything__get-sum, offered only the catalog tools', async () => {
    const project = everythingSearchProject('switchboard-catalog-claude-');
    const anthropic = await startFakeAnthropic({
      // A model that reads each answer and takes the next step.
      respond: (req) => {
        const last = lastMessage(req);
        if (last.includes('The sum of 2 and 3 is 5')) return 'Two plus three is 5.';
        if (last.includes('inputSchema'))
          return toolUse('mcp__switchboard__catalog__call', { name: 'everything__get-sum', arguments: { a: 2, b: 3 } });
        if (last.includes('everything__get-sum'))
          return toolUse('mcp__switchboard__catalog__describe', { name: 'everything__get-sum' });
        return toolUse('mcp__switchboard__catalog__search', { query: 'add two numbers' });
      },
    });
    try {
      const mcpConfig = switchboardMcpConfig(project);
      const events = await claude(
        project,
        'what is 2 + 3? use a tool',
        ['--mcp-config', mcpConfig, '--strict-mcp-config', '--allowedTools', ...CATALOG_TOOLS],
        anthropic,
      );
      expect(events.find((e) => e.type === 'result')).toMatchObject({
        subtype: 'success',
        result: 'Two plus three is 5.',
      });

      // Claude Code waits for its MCP servers before the first turn (test/helpers/claude-code.ts): every turn, the
      // first included, offers Switchboard's tools.
      const turns = anthropic.messages();
      const last = turns.at(-1) as RecordedRequest;
      for (const turn of turns) {
        const offered = turn.body.tools.map((t: { name: string }) => t.name);
        expect(offered.filter((n: string) => n.startsWith('mcp__switchboard__')).sort()).toEqual(
          [...CATALOG_TOOLS].sort(),
        );
      }
      // The answers that reached the model, in order: the search found the tool, the description gave its schema,
      // the call its result.
      const results = (last.body.messages as { content: unknown }[])
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .filter((b: { type?: string }) => b.type === 'tool_result')
        .map((b: { content: unknown }) => JSON.stringify(b.content));
      expect(results).toHaveLength(3);
      expect(results[0]).toContain('everything__get-sum');
      expect(results[0]).toContain('why');
      expect(results[1]).toMatch(/inputSchema.*\\"a\\".*\\"b\\"/);
      expect(results[2]).toContain('The sum of 2 and 3 is 5.');

      // The call is audited as the upstream tool's, not as catalog.call.
      const audit = await runCli(project, ['audit', '--json']);
      const names = JSON.parse(audit.stdout).map((r: { capability: string }) => r.capability);
      expect(names.sort()).toEqual(['catalog.describe', 'catalog.search', 'everything.get-sum']);
    } finally {
      await anthropic.close();
      rmSync(project, { recursive: true, force: true });
    }
  }, 150_000);
});
