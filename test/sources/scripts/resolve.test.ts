// Script resolution: project over user over bundled, compiled modules only at or above their NL file's level,
// `a:b` = `a/b`, exact names before `-`→`_`, and names that could leave a scripts folder refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { substituteArguments } from '../../../src/sources/scripts/nl.ts';
import {
  listScripts,
  normaliseName,
  resolveScript,
  type ScriptLevel,
  type ScriptRoots,
  scriptRoots,
} from '../../../src/sources/scripts/resolve.ts';
import { writeFiles } from './helpers.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function roots(): ScriptRoots {
  const base = mkdtempSync(join(tmpdir(), 'switchboard-resolve-'));
  dirs.push(base);
  return {
    project: join(base, 'p'),
    mekara: join(base, 'm'),
    user: join(base, 'u'),
    'user-mekara': join(base, 'um'),
    bundled: join(base, 'b'),
  };
}

type Layout = { nl: ScriptLevel[]; compiled: ScriptLevel[] };

/** Put `name` at the given levels: NL files and compiled modules. */
function place(r: ScriptRoots, name: string, layout: Layout): void {
  for (const level of layout.nl) writeFiles(r[level], { [`nl/${name}.md`]: `# ${name} at ${level}\n` });
  for (const level of layout.compiled)
    writeFiles(r[level], { [`compiled/${name}.mjs`]: 'export default function* () {}\n' });
}

describe('resolveScript precedence', () => {
  // [NL levels, compiled levels] → [winning NL level, compiled level or null]
  const matrix: [Layout, ScriptLevel, ScriptLevel | null][] = [
    [{ nl: ['project', 'user', 'bundled'], compiled: [] }, 'project', null],
    [{ nl: ['user', 'bundled'], compiled: [] }, 'user', null],
    [{ nl: ['bundled'], compiled: [] }, 'bundled', null],
    [{ nl: ['bundled'], compiled: ['bundled'] }, 'bundled', 'bundled'],
    [{ nl: ['project'], compiled: ['project'] }, 'project', 'project'],
    // A project may compile a bundled or user NL script.
    [{ nl: ['bundled'], compiled: ['project'] }, 'bundled', 'project'],
    [{ nl: ['user'], compiled: ['project'] }, 'user', 'project'],
    [{ nl: ['bundled'], compiled: ['user', 'bundled'] }, 'bundled', 'user'],
    // A compiled module below its NL file's level does not count: the project's own NL version wins as NL.
    [{ nl: ['project', 'bundled'], compiled: ['bundled'] }, 'project', null],
    [{ nl: ['project'], compiled: ['user'] }, 'project', null],
    [{ nl: ['user', 'bundled'], compiled: ['bundled'] }, 'user', null],
    // The highest compiled module at or above the NL level wins.
    [{ nl: ['user'], compiled: ['project', 'user'] }, 'user', 'project'],
    // ~/.mekara/scripts sits below the project's .mekara and the user's ~/.switchboard, above the bundled scripts.
    [{ nl: ['mekara', 'user-mekara'], compiled: [] }, 'mekara', null],
    [{ nl: ['user', 'user-mekara'], compiled: [] }, 'user', null],
    [{ nl: ['user-mekara', 'bundled'], compiled: [] }, 'user-mekara', null],
    [{ nl: ['user-mekara'], compiled: ['user-mekara'] }, 'user-mekara', 'user-mekara'],
    [{ nl: ['user-mekara'], compiled: ['mekara'] }, 'user-mekara', 'mekara'],
    [{ nl: ['mekara'], compiled: ['user-mekara'] }, 'mekara', null],
  ];
  for (const [layout, level, compiled] of matrix) {
    it(`NL at ${layout.nl.join('+')}, compiled at ${layout.compiled.join('+') || 'none'} → NL ${level}, compiled ${compiled ?? 'none'}`, () => {
      const r = roots();
      place(r, 'flow', layout);
      const found = resolveScript(r, 'flow');
      expect(found?.level).toBe(level);
      expect(found?.nlFile).toBe(join(r[level], 'nl', 'flow.md'));
      expect(found?.compiledLevel ?? null).toBe(compiled);
      if (compiled) expect(found?.compiledFile).toBe(join(r[compiled], 'compiled', 'flow.mjs'));
      else expect(found?.compiledFile).toBeUndefined();
    });
  }

  it('needs the NL file: a compiled module alone is not a script', () => {
    const r = roots();
    place(r, 'orphan', { nl: [], compiled: ['project'] });
    expect(resolveScript(r, 'orphan')).toBeUndefined();
  });
});

describe('script names', () => {
  it('treats a:b and a/b as the same script and displays it with a colon', () => {
    const r = roots();
    place(r, 'test/deep/flow', { nl: ['user'], compiled: [] });
    for (const name of ['test:deep:flow', 'test/deep/flow', '/test:deep/flow', '//test/deep:flow'])
      expect(resolveScript(r, name)).toMatchObject({ name: 'test:deep:flow', path: 'test/deep/flow', level: 'user' });
  });

  it('tries the exact file name first, then with - as _', () => {
    const r = roots();
    writeFiles(r.project, { 'nl/fix-bug.md': 'dash', 'nl/fix_bug.md': 'underscore', 'nl/only_under.md': 'u' });
    expect(resolveScript(r, 'fix-bug')?.nlFile).toBe(join(r.project, 'nl', 'fix-bug.md'));
    expect(resolveScript(r, 'fix_bug')?.nlFile).toBe(join(r.project, 'nl', 'fix_bug.md'));
    expect(resolveScript(r, 'only-under')).toMatchObject({ name: 'only_under', level: 'project' });
  });

  it('refuses names that could leave the scripts folder, naming what is allowed', () => {
    for (const bad of ['../secret', 'a/../../b', '', 'a::b', 'a b', '/']) {
      expect(() => normaliseName(bad)).toThrow(/Invalid script name.*expected segments/);
    }
  });

  it('lists one entry per name, from the level that wins, sorted', () => {
    const r = roots();
    place(r, 'shared', { nl: ['project', 'bundled'], compiled: ['bundled'] });
    place(r, 'test/random', { nl: ['bundled'], compiled: ['bundled'] });
    place(r, 'mine', { nl: ['user'], compiled: [] });
    expect(listScripts(r).map((s) => [s.name, s.level, s.compiledLevel ?? null])).toEqual([
      ['mine', 'user', null],
      ['shared', 'project', null],
      ['test:random', 'bundled', 'bundled'],
    ]);
  });
});

describe('scriptRoots', () => {
  it('finds the user level under SWITCHBOARD_HOME, else under HOME from the given environment', () => {
    expect(scriptRoots('/p', { SWITCHBOARD_HOME: '/sb', HOME: '/h' })).toMatchObject({
      project: join('/p', '.switchboard', 'scripts'),
      user: join('/sb', 'scripts'),
    });
    expect(scriptRoots('/p', { HOME: '/h' }).user).toBe(join('/h', '.switchboard', 'scripts'));
    expect(scriptRoots('/p', {}).bundled).toMatch(/bundled[/\\]scripts$/);
  });
});

describe('NL arguments', () => {
  it('replaces only the first $ARGUMENTS', () => {
    expect(substituteArguments('a $ARGUMENTS b $ARGUMENTS', 'X')).toBe('a X b $ARGUMENTS');
    expect(substituteArguments('no placeholder', 'X')).toBe('no placeholder');
  });
});
