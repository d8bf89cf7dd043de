// `switchboard hook dispatch` as Claude Code runs it: the built CLI as a child process, a hook event on stdin, the
// answer on stdout — block JSON for a failing Stop check, nothing on success, never a block for our own faults.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv } from '../helpers/cli.ts';
import { pluginProject, writeFiles, writePlugin } from '../helpers/plugins.ts';

const CHECK = `touch "$SWITCHBOARD_PROJECT_DIR/ran-\${PWD##*/}"; if [ -f fail ]; then echo "failing in \${PWD##*/}"; exit 1; fi`;

function project(manifest: string, failing = true): string {
  const root = pluginProject();
  writeFiles(root, {
    'packages/a/package.json': '{}',
    'packages/b/package.json': '{}',
    ...(failing ? { 'packages/b/fail': '' } : {}),
  });
  writePlugin(root, 'checks', manifest);
  return root;
}

function dispatch(root: string, event: unknown, opts: { cwd?: boolean } = {}) {
  const args = opts.cwd === false ? [BIN, 'hook', 'dispatch'] : [BIN, '--cwd', root, 'hook', 'dispatch'];
  const r = spawnSync(process.execPath, args, {
    input: typeof event === 'string' ? event : JSON.stringify(event),
    env: childEnv(root),
    cwd: tmpdir(),
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const stop = (extra: Record<string, unknown> = {}) => ({
  session_id: 's-1',
  transcript_path: '/tmp/t.jsonl',
  cwd: '/nowhere',
  hook_event_name: 'Stop',
  ...extra,
});

describe('hook dispatch', () => {
  it('blocks a Stop with the failing output as the reason', () => {
    const root = project(`hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json] }\n`);
    const r = dispatch(root, stop());
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(Object.keys(answer)).toEqual(['decision', 'reason']);
    expect(answer.decision).toBe('block');
    expect(answer.reason).toMatch(/^1 plugin check failed\. Fix it before finishing:/);
    expect(answer.reason).toContain('❌ packages/b: failed, exit code 1');
    expect(answer.reason).toContain('failing in b');
  });

  it('prints nothing when every check passes, for Stop and SubagentStop', () => {
    const root = project(`hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json] }\n`, false);
    for (const hook_event_name of ['Stop', 'SubagentStop']) {
      const r = dispatch(root, stop({ hook_event_name }));
      expect(r).toMatchObject({ code: 0, stdout: '' });
    }
    expect(existsSync(join(root, 'ran-a'))).toBe(true);
  });

  it('blocks a SubagentStop with a han-plugin.yml hook that names only Stop, as Han registers it', () => {
    const root = pluginProject();
    writeFiles(root, { 'packages/b/package.json': '{}', 'packages/b/fail': '' });
    writePlugin(root, 'checks', `hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json], event: Stop }\n`, {
      file: 'han-plugin.yml',
    });
    const answer = JSON.parse(dispatch(root, stop({ hook_event_name: 'SubagentStop' })).stdout);
    expect(answer).toMatchObject({ decision: 'block', reason: expect.stringContaining('failing in b') });
  });

  it('exits 0 without output on malformed stdin and says why on stderr', () => {
    const root = project(`hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json] }\n`);
    const notJson = dispatch(root, '{"hook_event_name": ');
    expect(notJson).toMatchObject({ code: 0, stdout: '' });
    expect(notJson.stderr).toMatch(/stdin is not JSON/);
    const noEvent = dispatch(root, { session_id: 'x' });
    expect(noEvent).toMatchObject({ code: 0, stdout: '' });
    expect(noEvent.stderr).toMatch(/hook_event_name/);
    const array = dispatch(root, '[1,2]');
    expect(array).toMatchObject({ code: 0, stdout: '' });
    expect(existsSync(join(root, 'ran-a'))).toBe(false);
  });

  it('runs only hooks whose event and tool_filter match a tool event', () => {
    const root = project(
      `hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json], event: PostToolUse, tool_filter: [Edit, "mcp__*"] }\n  stop-only: { command: 'touch "$SWITCHBOARD_PROJECT_DIR/stop-ran"' }\n`,
    );
    const read = dispatch(
      root,
      stop({ hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: 'x' } }),
    );
    expect(read).toMatchObject({ code: 0, stdout: '' });
    expect(existsSync(join(root, 'ran-a'))).toBe(false);
    expect(existsSync(join(root, 'stop-ran'))).toBe(false);
    const edit = dispatch(root, stop({ hook_event_name: 'PostToolUse', tool_name: 'mcp__fs__write', tool_input: {} }));
    expect(JSON.parse(edit.stdout)).toMatchObject({
      decision: 'block',
      reason: expect.stringContaining('failing in b'),
    });
    expect(existsSync(join(root, 'stop-ran'))).toBe(false);
    expect(dispatch(root, stop()).stdout).toBe('');
    expect(existsSync(join(root, 'stop-ran'))).toBe(true);
  });

  it("honours Han's PostToolUse:Tool|Tool shorthand and file_filter on the edited file", () => {
    const root = project(
      `hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json], event: ["Stop", "PostToolUse:Edit|Write"], file_filter: ["packages/**/*.js"] }\n`,
    );
    const post = (tool_name: string, file_path: string) =>
      dispatch(root, stop({ hook_event_name: 'PostToolUse', tool_name, tool_input: { file_path } }));
    expect(post('Read', join(root, 'packages/a/x.js')).stdout).toBe('');
    expect(post('Edit', join(root, 'README.md')).stdout).toBe('');
    expect(existsSync(join(root, 'ran-a'))).toBe(false);
    expect(JSON.parse(post('Write', join(root, 'packages/a/x.js')).stdout).decision).toBe('block');
    expect(existsSync(join(root, 'ran-a'))).toBe(true);
  });

  it('reports a failure on an event that cannot block on stderr only', () => {
    const root = project(`hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json], event: SessionStart }\n`);
    const r = dispatch(root, stop({ hook_event_name: 'SessionStart' }));
    expect(r).toMatchObject({ code: 0, stdout: '' });
    expect(r.stderr).toContain('failing in b');
  });

  it('does not block when a hook finds nothing to run in this project', () => {
    const root = project(`hooks:\n  cargo: { command: "exit 1", dirs_with: [Cargo.toml] }\n`);
    expect(dispatch(root, stop())).toMatchObject({ code: 0, stdout: '' });
  });

  it("takes the project from the event's cwd when --cwd is not given", () => {
    const root = project(`hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json] }\n`);
    const r = dispatch(root, stop({ cwd: root }), { cwd: false });
    expect(JSON.parse(r.stdout).decision).toBe('block');
  });

  it('lets a session stop after three blocks in a row while the stop hook is active', () => {
    const root = project(`hooks:\n  test: { command: '${CHECK}', dirs_with: [package.json] }\n`);
    expect(JSON.parse(dispatch(root, stop()).stdout).decision).toBe('block');
    expect(JSON.parse(dispatch(root, stop({ stop_hook_active: true })).stdout).decision).toBe('block');
    expect(JSON.parse(dispatch(root, stop({ stop_hook_active: true })).stdout).decision).toBe('block');
    const fourth = dispatch(root, stop({ stop_hook_active: true }));
    expect(fourth).toMatchObject({ code: 0, stdout: '' });
    expect(fourth.stderr).toMatch(/Letting the agent stop after 3 blocked attempts in a row/);
    // Another session is counted on its own.
    expect(JSON.parse(dispatch(root, stop({ session_id: 's-2', stop_hook_active: true })).stdout).decision).toBe(
      'block',
    );
  });
});
