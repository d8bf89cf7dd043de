// The fence's command line (src/core/sandbox.ts): what is bound, how, and what never is — whatever PATH, HOME and the
// server's words say. The fence's effect on real servers is tested end to end in test/e2e/fence.test.ts.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Fence, fencedCommand } from '../../src/core/sandbox.ts';

/** A HOME with a project, an npm package beside it and a cargo folder holding a credential. */
function machine() {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'sb-fence-unit-')));
  const project = join(home, 'app');
  for (const d of [join(project, '.switchboard'), join(home, '.cargo/bin'), join(home, 'tools/node_modules/srv/dist')])
    mkdirSync(d, { recursive: true });
  writeFileSync(join(home, '.cargo/credentials.toml'), 'token');
  writeFileSync(join(home, 'tools/node_modules/srv/package.json'), '{}');
  writeFileSync(join(home, 'tools/node_modules/srv/dist/index.js'), '');
  writeFileSync(join(project, 'server.mjs'), '');
  return { home, project };
}

const fence = (m: { home: string; project: string }, over: Partial<Fence> = {}): Fence => ({
  read: [],
  write: [],
  network: true,
  required: false,
  hide: [join(m.project, '.switchboard')],
  protect: [],
  home: join(m.home, '.cache/fenced/srv'),
  ...over,
});

/** The [option, source] pairs of a bwrap command line. */
function binds(args: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') break;
    if (['--bind', '--ro-bind', '--ro-bind-try', '--tmpfs'].includes(args[i])) out.push([args[i], args[i + 1]]);
  }
  return out;
}

describe('fencedCommand', () => {
  it('binds PATH folders themselves, never their parents, nor / nor the home that holds them', () => {
    const m = machine();
    const env = { HOME: m.home, PATH: `${m.home}/.cargo/bin:/bin:/usr/bin:${m.home}` };
    const { command, args } = fencedCommand('node', ['server.mjs'], m.project, fence(m), env);
    expect(command).toBe('bwrap');
    const sources = binds(args).map(([, src]) => src);
    expect(sources).toContain(join(m.home, '.cargo/bin'));
    expect(sources).not.toContain(join(m.home, '.cargo'));
    expect(sources).not.toContain('/');
    expect(binds(args)).not.toContainEqual(['--ro-bind', m.home]);
    // The server's private home is what is mounted at HOME, read-write.
    expect(args.join(' ')).toContain(`--bind ${join(m.home, '.cache/fenced/srv')} ${m.home}`);
  });

  it('binds the project read-write, hides the hub state in it, and ends with the command after --', () => {
    const m = machine();
    const { args } = fencedCommand('node', ['./server.mjs', 'stdio'], m.project, fence(m), { HOME: m.home, PATH: '' });
    expect(binds(args)).toContainEqual(['--bind', m.project]);
    expect(binds(args)).toContainEqual(['--tmpfs', join(m.project, '.switchboard')]);
    const tail = args.slice(args.indexOf('--'));
    expect(tail).toEqual(['--', 'node', './server.mjs', 'stdio']);
    expect(args).toContain('--die-with-parent');
    expect(args).toContain('--unshare-pid');
    expect(args).not.toContain('--unshare-net');
  });

  it('gives a script inside node_modules the whole node_modules folder, read-only; a plain word binds nothing', () => {
    const m = machine();
    const script = '../tools/node_modules/srv/dist/index.js';
    const { args } = fencedCommand('node', [script, 'stdio'], m.project, fence(m), { HOME: m.home, PATH: '' });
    expect(binds(args)).toContainEqual(['--ro-bind', join(m.home, 'tools/node_modules')]);
    expect(binds(args).some(([, src]) => src.endsWith('/stdio'))).toBe(false);
  });

  it('network = false unshares the network; read and write paths are bound as such', () => {
    const m = machine();
    const data = join(m.home, 'data');
    const out = join(m.home, 'out');
    for (const d of [data, out]) mkdirSync(d);
    const { args } = fencedCommand('node', [], m.project, fence(m, { network: false, read: [data], write: [out] }), {
      HOME: m.home,
      PATH: '',
    });
    expect(args).toContain('--unshare-net');
    expect(binds(args)).toContainEqual(['--ro-bind', data]);
    expect(binds(args)).toContainEqual(['--bind', out]);
  });
});
