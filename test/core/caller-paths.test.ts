// Paths in answers to callers: the rewriting itself (a table), and the pipeline applying it to every failed call
// while its observers (audit trail, events) keep the absolute paths.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callerPaths, errorForCaller } from '../../src/core/caller-paths.ts';
import { defineCapability } from '../../src/core/capability.ts';
import { SwitchboardError } from '../../src/core/errors.ts';
import type { Outcome } from '../../src/core/pipeline.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';

describe('callerPaths', () => {
  const shown = callerPaths('/srv/app', '/home/ann');
  it.each([
    ["No agent 'x' in /srv/app/.switchboard/agents", "No agent 'x' in .switchboard/agents"],
    [
      "ENOENT: no such file or directory, open '/srv/app/notes.txt'",
      "ENOENT: no such file or directory, open 'notes.txt'",
    ],
    ['Compiled script file:///srv/app/s.mjs failed', 'Compiled script s.mjs failed'],
    ['project_dir: /srv/app is not a git repository', 'project_dir: ./ is not a git repository'],
    ["'/srv/app/'", "'./'"],
    ['outside the project root /srv/app.', 'outside the project root ./.'],
    ['cannot read /home/ann/.switchboard/config.toml', 'cannot read ~/.switchboard/config.toml'],
    ['two: /srv/app/a and /srv/app/b', 'two: a and b'],
    // Not the project: a longer name, a sibling, a path that merely contains it.
    ['/srv/app2/x', '/srv/app2/x'],
    ['/srv/app.d/x', '/srv/app.d/x'],
    ['/opt/srv/app/x', '/opt/srv/app/x'],
    ['/etc/passwd', '/etc/passwd'],
  ])('%s → %s', (text, expected) => {
    expect(shown(text)).toBe(expected);
  });

  it('shows a project inside the home directory relative to the project, not as ~/…', () => {
    expect(callerPaths('/home/ann/app', '/home/ann')('in /home/ann/app/x and /home/ann/y')).toBe('in x and ~/y');
  });

  it('never rewrites a filesystem root', () => {
    expect(callerPaths('/', '/')('/etc/passwd and /srv')).toBe('/etc/passwd and /srv');
  });

  it('rewrites the strings in error details and keeps the error when nothing changes', () => {
    const error = { code: 'INVALID_INPUT' as const, message: 'bad', details: { file: '/srv/app/a.toml', line: 3 } };
    expect(errorForCaller(error, shown)).toEqual({ ...error, details: { file: 'a.toml', line: 3 } });
    const clean = { code: 'NOT_FOUND' as const, message: 'No such task.' };
    expect(errorForCaller(clean, shown)).toBe(clean);
  });
});

describe('the pipeline answers callers with project-relative paths', () => {
  let hub: TestHub;
  const observed: Outcome[] = [];
  beforeAll(async () => {
    hub = await testHub();
    hub.services.registry.add(
      defineCapability({
        name: 'paths.fail',
        description: 'fails naming a project file',
        input: z.object({}),
        handle: (_input, ctx) => {
          const file = join(ctx.services.projectDir, '.switchboard/agents/a.json');
          throw new SwitchboardError('NOT_FOUND', `No file ${file}.`, { file });
        },
      }),
    );
    hub.pipeline.observe((_state, outcome) => observed.push(outcome));
  });
  afterAll(() => hub.close());

  it('rewrites the message and details the caller gets; observers (audit, events) keep the absolute path', async () => {
    const outcome = await hub.call('paths.fail');
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'NOT_FOUND',
        message: 'No file .switchboard/agents/a.json.',
        details: { file: '.switchboard/agents/a.json' },
      },
    });
    const absolute = join(hub.dir, '.switchboard/agents/a.json');
    expect(observed.at(-1)).toMatchObject({ ok: false, error: { message: `No file ${absolute}.` } });
  });
});
