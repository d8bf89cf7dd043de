// Child processes: results, minimal environment, and cancellation that kills the whole process group.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/core/capability.ts';
import { minimalEnv, runCommand } from '../../src/core/process.ts';
import { testHub } from '../helpers/hub.ts';
import { alive, gone, pidFrom } from '../helpers/proc.ts';

describe('runCommand', () => {
  it('returns exit code and output; a non-zero exit is a result', async () => {
    const ok = await runCommand('sh', ['-c', 'echo out; echo err >&2'], { signal: new AbortController().signal });
    expect(ok).toMatchObject({ exitCode: 0, stdout: 'out\n', stderr: 'err\n' });
    const bad = await runCommand('sh', ['-c', 'exit 3'], { signal: new AbortController().signal });
    expect(bad.exitCode).toBe(3);
  });

  it('gives the child a minimal environment, not the hub’s secrets', async () => {
    process.env.SWITCHBOARD_TEST_SECRET = 'do-not-leak';
    const r = await runCommand('env', [], { signal: new AbortController().signal });
    delete process.env.SWITCHBOARD_TEST_SECRET;
    expect(r.stdout).toContain('PATH=');
    expect(r.stdout).not.toContain('do-not-leak');
  });

  it('fails clearly for a missing program', async () => {
    await expect(
      runCommand('definitely-not-a-program-xyz', [], { signal: new AbortController().signal }),
    ).rejects.toThrow(/Could not run 'definitely-not-a-program-xyz'/);
  });

  it('streams output chunks in arrival order as they come', async () => {
    const chunks: string[] = [];
    const r = await runCommand('sh', ['-c', 'echo one; sleep 0.05; echo two >&2; sleep 0.05; echo three'], {
      signal: new AbortController().signal,
      onOutput: (text, stream) => chunks.push(`${stream}:${text}`),
    });
    expect(chunks).toEqual(['stdout:one\n', 'stderr:two\n', 'stdout:three\n']);
    expect(r).toMatchObject({ exitCode: 0, stdout: 'one\nthree\n', stderr: 'two\n', idleTimedOut: false });
  });

  it('idleTimeoutMs kills a silent process group but spares a chatty one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-proc-'));
    const pidFile = join(dir, 'pid');
    const silent = await runCommand('sh', ['-c', `echo hi; sleep 30 & echo $! > ${pidFile}; wait`], {
      signal: new AbortController().signal,
      idleTimeoutMs: 300,
    });
    expect(silent).toMatchObject({ exitCode: 124, idleTimedOut: true, timedOut: false, stdout: 'hi\n' });
    const grandchild = await pidFrom(pidFile);
    expect(await gone(grandchild)).toBe(true);
    // Total well past the idle limit, never silent for long: only the silence counts.
    const chatty = await runCommand('sh', ['-c', 'for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.2; done'], {
      signal: new AbortController().signal,
      idleTimeoutMs: 1000,
    });
    expect(chatty).toMatchObject({ exitCode: 0, idleTimedOut: false });
  });

  it('with buffer false keeps nothing itself, passes every chunk on, and is not stopped by the output cap', async () => {
    let seen = 0;
    const r = await runCommand('sh', ['-c', 'head -c 3000000 /dev/zero | tr "\\0" x; echo; exit 3'], {
      signal: new AbortController().signal,
      buffer: false,
      maxOutputBytes: 1024,
      onOutput: (text) => {
        seen += text.length;
      },
    });
    expect(r).toMatchObject({ exitCode: 3, truncated: false, stdout: '', stderr: '' });
    expect(seen).toBe(3_000_001);
  });

  it('takes the minimal environment from the environment it is given', async () => {
    const r = await runCommand('env', [], {
      signal: new AbortController().signal,
      env: minimalEnv({ EXTRA: '1' }, { PATH: process.env.PATH, HOME: '/tmp/elsewhere', SECRET: 'x' }),
    });
    expect(r.stdout).toContain('HOME=/tmp/elsewhere');
    expect(r.stdout).toContain('EXTRA=1');
    expect(r.stdout).not.toContain('SECRET');
  });

  it('kills the whole process group when the signal aborts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-proc-'));
    const pidFile = join(dir, 'pid');
    const controller = new AbortController();
    const running = runCommand('sh', ['-c', `sleep 30 & echo $! > ${pidFile}; wait`], { signal: controller.signal });
    const grandchild = await pidFrom(pidFile);
    expect(alive(grandchild)).toBe(true);
    controller.abort();
    await expect(running).rejects.toThrow();
    expect(await gone(grandchild)).toBe(true);
  });

  it('a capability timeout kills the tree the call started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-proc-'));
    const pidFile = join(dir, 'pid');
    const hub = await testHub();
    hub.services.registry.add(
      defineCapability({
        name: 'p.spawn',
        description: 'spawns a tree',
        input: z.object({}),
        policy: { timeoutMs: 300 },
        handle: (_i, ctx) => runCommand('sh', ['-c', `sleep 30 & echo $! > ${pidFile}; wait`], { signal: ctx.signal }),
      }),
    );
    const out = await hub.call('p.spawn', {});
    expect(out).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    const grandchild = await pidFrom(pidFile);
    expect(await gone(grandchild)).toBe(true);
    await hub.close();
  });
});

describe('runCommand limits', () => {
  it('its own timeout kills the whole group and answers 124 promptly', async () => {
    const started = Date.now();
    const r = await runCommand('sh', ['-c', 'sleep 60 & wait'], {
      signal: new AbortController().signal,
      timeoutMs: 200,
    });
    expect(r).toMatchObject({ exitCode: 124, timedOut: true });
    // Time is the behaviour: the answer comes after the 200 ms timeout, not after the child's 60 s; the bound sits far
    // from both, so a busy machine cannot cross it.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('cuts output past maxOutputBytes instead of failing', async () => {
    const r = await runCommand('sh', ['-c', 'yes hello | head -c 100000'], {
      signal: new AbortController().signal,
      maxOutputBytes: 1000,
    });
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBeLessThanOrEqual(1000);
  });
});
