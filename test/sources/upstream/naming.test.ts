// Upstream names: server__tool, decided for all servers at once so the result never depends on who answered first.
import { describe, expect, it } from 'vitest';
import { toolNameOf } from '../../../src/core/names.ts';
import { withDefaults } from '../../../src/mcp-client/side-channel.ts';
import { planNames, type ServerListing } from '../../../src/sources/upstream/naming.ts';

const server = (name: string, tools: string[], extra: Partial<ServerListing> = {}): ServerListing => ({
  name,
  tools,
  prompts: [],
  allow: [],
  deny: [],
  ...extra,
});

describe('planNames', () => {
  it('names tools server.tool (tool name server__tool), keeping dots as separators and cleaning the rest', () => {
    const plan = planNames([server('fs', ['read_file', 'dir.list', 'weird name/x'])], () => false);
    expect(plan.get('fs')?.tools.map((t) => [t.original, t.name])).toEqual([
      ['dir.list', 'fs.dir.list'],
      ['read_file', 'fs.read_file'],
      ['weird name/x', 'fs.weird_name_x'],
    ]);
  });

  it('renames a clash the same way whichever server is listed first, and says why', () => {
    // `x` + tool `y.echo` and `x__y` + tool `echo` both become the MCP tool name x__y__echo.
    const a = planNames([server('x', ['y.echo']), server('x__y', ['echo'])], () => false);
    const b = planNames([server('x__y', ['echo']), server('x', ['y.echo'])], () => false);
    expect(a).toEqual(b);
    expect(a.get('x')?.tools[0]).toEqual({ original: 'y.echo', name: 'x.y.echo' });
    expect(a.get('x__y')?.tools[0]).toEqual({
      original: 'echo',
      name: 'x__y.echo_2',
      renamed: { from: 'x__y.echo', reason: 'the name is already taken' },
    });
  });

  it('never takes a name a handler or built-in already holds', () => {
    const taken = new Set(['demo.echo', 'demo__echo']);
    const plan = planNames([server('demo', ['echo', 'other'])], (n) => taken.has(n));
    expect(plan.get('demo')?.tools.map((t) => t.name)).toEqual(['demo.echo_2', 'demo.other']);
  });

  it('gives a server named like a built-in domain the prefix <name>_mcp', () => {
    for (const name of ['task', 'system', 'script', 'agent', 'session']) {
      const plan = planNames([server(name, ['x'])], () => false);
      expect(plan.get(name)?.domain).toBe(`${name}_mcp`);
      expect(plan.get(name)?.tools[0].name).toBe(`${name}_mcp.x`);
    }
  });

  it('applies tools.allow and tools.deny globs, deny winning, and reports what it hid', () => {
    const plan = planNames(
      [server('gh', ['issues_list', 'issues_delete', 'repo_read'], { allow: ['issues_*'], deny: ['*_delete'] })],
      () => false,
    );
    expect(plan.get('gh')?.tools.map((t) => t.original)).toEqual(['issues_list']);
    expect(plan.get('gh')?.filtered.sort()).toEqual(['issues_delete', 'repo_read']);
  });

  it('keeps long names within 64 characters with a stable hash tail', () => {
    const long = 'a'.repeat(80);
    const plan = planNames([server('srv', [long])], () => false);
    const name = plan.get('srv')?.tools[0].name as string;
    expect(name).toBe(`srv.${long}`);
    expect(toolNameOf(name).length).toBeLessThanOrEqual(64);
    expect(planNames([server('srv', [long])], () => false).get('srv')?.tools[0].name).toBe(name);
  });
});

describe('withDefaults (SEP-1034)', () => {
  const params = {
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', default: 'Ada' },
        age: { type: 'integer', default: 36 },
        note: { type: 'string' },
      },
    },
  };
  it('fills in the defaults of fields an accepted answer left out, keeping what the user gave', () => {
    expect(withDefaults({ action: 'accept', content: { age: 40 } }, params)).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 40 },
    });
  });
  it('leaves a declined or cancelled answer alone', () => {
    expect(withDefaults({ action: 'decline' }, params)).toEqual({ action: 'decline' });
    expect(withDefaults({ action: 'cancel' }, params)).toEqual({ action: 'cancel' });
  });
});
