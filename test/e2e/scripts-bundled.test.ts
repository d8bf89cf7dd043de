// End-to-end: every bundled script, run over stdio with the official SDK client in working directories whose
// names are shell injections, runs to the end without running the injected command.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { connectStdio, tempProject } from '../helpers/cli.ts';

type ToolResult = { content: { text: string }[]; structuredContent?: { state?: string }; isError?: boolean };

// Each would create a file named PWNED if the directory's name reached a shell unquoted or badly quoted.
const HOSTILE_NAMES = ["x';id>PWNED;echo '", '$(touch PWNED)', '`touch PWNED`', 'a"; touch PWNED; echo "'];

// Every output any bundled script's LLM steps ask for (extra keys are ignored by the others).
const OUTPUTS = {
  parity: 'even',
  summary: 'It picked a number and doubled it.',
  choice: 'double',
  message: 'Add the greeting\n\nThe project says hello.',
};

/** Every path under `dir`, relative to it (git's own folders left out). */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => !p.split('/').includes('.git'));
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' });

/** A git repository at `dir` with one staged file, so commit-message has something to commit. */
function stagedRepo(dir: string): void {
  mkdirSync(dir);
  git(dir, 'init', '--quiet');
  git(dir, 'config', 'user.name', 'Test');
  git(dir, 'config', 'user.email', 'test@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  writeFileSync(join(dir, 'hello.txt'), 'hello\n');
  git(dir, 'add', 'hello.txt');
}

describe('bundled scripts in a working directory named like a shell injection', () => {
  // The hostile directories live inside the project, where working_dir is allowed.
  const project = tempProject();
  let client: Client;
  afterAll(async () => {
    await client?.close();
    rmSync(project, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolResult;

  /** Start `script` in `dir` and answer each step the agent gets, until the run finishes. */
  async function runToTheEnd(script: string, dir: string): Promise<string> {
    let answer = await call('script__start', { name: script, working_dir: dir });
    const texts = [answer.content.map((c) => c.text).join('\n')];
    for (let turn = 0; turn < 10 && answer.structuredContent?.state !== 'finished'; turn++) {
      const state = answer.structuredContent?.state;
      if (state === 'llm') answer = await call('script__continue_compiled_script', { outputs: OUTPUTS });
      else if (state === 'nl') answer = await call('script__finish_nl_script', {});
      else throw new Error(`${script} in ${dir} stopped in state ${state}:\n${texts.at(-1)}`);
      texts.push(answer.content.map((c) => c.text).join('\n'));
    }
    expect(answer.isError, texts.join('\n---\n')).toBeFalsy();
    expect(answer.structuredContent?.state, texts.join('\n---\n')).toBe('finished');
    return texts.join('\n');
  }

  it('runs each one to the end and no injected command runs', async () => {
    ({ client } = await connectStdio(project, 'e2e-bundled-scripts'));
    const listed = (await call('script__list', {})) as { structuredContent?: { scripts?: any[] } };
    const bundled = (listed.structuredContent?.scripts ?? []).filter((s) => s.level === 'bundled').map((s) => s.name);
    expect(bundled).toEqual(
      expect.arrayContaining([
        'commit-message',
        'release-notes',
        'test:random',
        'test:nested',
        'test:double_or_nothing',
      ]),
    );
    for (const name of HOSTILE_NAMES) {
      const dir = join(project, name);
      stagedRepo(dir);
      for (const script of bundled) {
        const transcript = await runToTheEnd(script, dir);
        expect(
          tree(project).filter((p) => basename(p) === 'PWNED'),
          `${script} in ${name}`,
        ).toEqual([]);
        if (script === 'commit-message') {
          expect(transcript).not.toContain('✗');
          expect(git(dir, 'log', '-1', '--format=%B').trim()).toBe(OUTPUTS.message);
        }
      }
    }
  });
});
