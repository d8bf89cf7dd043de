// The script executor through the real hub pipeline: auto steps until the agent is needed, nested and manual
// calls on one stack, fallbacks, failed commands, the two resume tools, and per-client stacks.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../src/core/context.ts';
import { createLogger } from '../../../src/observe/logger.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { gone, pidFrom } from '../../helpers/proc.ts';
import { until } from '../../helpers/until.ts';
import { nl, projectScripts, tool, writeFiles } from './helpers.ts';

let hub: TestHub;
beforeEach(async () => {
  hub = await testHub();
});
afterEach(async () => {
  await hub.close();
});

// In-process tests import the source directly (vitest's module runner does not apply Node's resolve hooks);
// the `import 'switchboard'` path is covered by the bundled scripts and the end-to-end tests.
const SRC = join(import.meta.dirname, '../../../src/index.ts');
const imports = `import { auto, llm, callScript } from ${JSON.stringify(SRC)};\n`;

describe('running a compiled script', () => {
  it('runs auto steps until an LLM step, listing each with its own indented output block', async () => {
    projectScripts(hub.dir, {
      'nl/two.md': nl('two'),
      'compiled/two.mjs': `${imports}export default function* (request) {
        yield auto('echo one');
        const r = yield auto('printf "two\\\\nlines"');
        yield llm('Name a colour for ' + request + ' after ' + r.output, { expects: { colour: 'one colour' } });
      }`,
    });
    const a = await tool(hub, 'script.start', { name: 'two', arguments: 'the sky' });
    expect(a).toMatchObject({ ok: true, state: 'llm', nextTool: 'script__continue_compiled_script' });
    expect(a.text).toContain('### Steps executed:\n- `two[0]`: ✓ `echo one`\n\n  <output>\n  one\n  </output>');
    expect(a.text).toContain('- `two[1]`: ✓ `printf "two\\nlines"`\n\n  <output>\n  two\n  lines\n  </output>');
    expect(a.text).toContain('### Pending LLM step: `two[2]`');
    expect(a.text).toContain('Name a colour for the sky after two\nlines');
    expect(a.text).toContain('- `colour`: one colour');
    expect(a.text).toContain('Call `script__continue_compiled_script` with `{"outputs":{"colour":"…"}}`');
    const done = await tool(hub, 'script.continue_compiled_script', { outputs: { colour: 'blue' } });
    expect(done).toMatchObject({ ok: true, state: 'finished' });
    expect(done.text).toContain('- `two[2]`: ✓ LLM step completed\n- `two`: ✓ script completed');
    expect(done.text).toContain('All scripts finished');
    expect(await hub.services.store.scriptRuns.get(a.runId as string)).toMatchObject({ status: 'finished' });
  });

  it('shows the NL source once, the first time the model is needed', async () => {
    projectScripts(hub.dir, {
      'nl/ask.md': '---\ndescription: asks twice\n---\n# Ask twice\n\nAsk about $ARGUMENTS.\n',
      'compiled/ask.mjs': `${imports}export default function* () {
        yield llm('first question');
        yield llm('second question');
      }`,
    });
    const first = await tool(hub, 'script.start', { name: 'ask', arguments: 'cats' });
    expect(first.text).toContain('<instructions>\n# Ask twice\n\nAsk about cats.\n</instructions>');
    expect(first.text).not.toContain('description: asks twice');
    const second = await tool(hub, 'script.continue_compiled_script', { outputs: {} });
    expect(second.text).toContain('second question');
    expect(second.text).not.toContain('<instructions>');
  });

  it('passes each step its result: exit code and output of commands, value of functions, outputs of LLM steps', async () => {
    projectScripts(hub.dir, {
      'nl/results.md': nl('results'),
      'compiled/results.mjs': `${imports}
      function add({ a, b }, ctx) { ctx.print('adding'); return a + b; }
      export default function* () {
        const sh = yield auto('echo hi');
        const fn = yield auto(add, { a: 2, b: 3 }, { why: 'sum' });
        const ll = yield llm('give me x', { expects: { x: 'anything' } });
        yield auto(function show({ all }, ctx) { ctx.print(JSON.stringify(all)); }, { all: [sh, fn, ll] });
        yield llm('done?');
      }`,
    });
    await tool(hub, 'script.start', { name: 'results' });
    const a = await tool(hub, 'script.continue_compiled_script', { outputs: { x: 42 } });
    const echoed = /<output>\n {2}(.*)\n {2}<\/output>/.exec(a.text)?.[1] as string;
    expect(JSON.parse(echoed)).toEqual([
      { success: true, exit_code: 0, output: 'hi\n' },
      { success: true, value: 5, error: null, output: 'adding' },
      { success: true, outputs: { x: 42 } },
    ]);
  });

  it('loads a TypeScript compiled script like a handler module', async () => {
    projectScripts(hub.dir, {
      'nl/typed.md': nl('typed'),
      'compiled/typed.ts': `import { auto, llm, type ShellResult } from ${JSON.stringify(SRC)};
      interface Plan { steps: number }
      const plan: Plan = { steps: 2 };
      export default function* (request: string): Generator<unknown, void, ShellResult> {
        for (let i = 0; i < plan.steps; i++) {
          const r: ShellResult = yield auto(\`echo typed-\${i}-\${request}\`);
          if (!r.success) return;
        }
        yield llm('typed done?');
      }`,
    });
    const a = await tool(hub, 'script.start', { name: 'typed', arguments: 'ts' });
    expect(a.state).toBe('llm');
    expect(a.text).toContain('- `typed[1]`: ✓ `echo typed-1-ts`');
  });

  it('hands functions their arguments as given and records what JSON cannot hold as text', async () => {
    projectScripts(hub.dir, {
      'nl/big.md': nl('big'),
      'compiled/big.mjs': `${imports}
      function kinds({ n, when }) { return [typeof n, when instanceof Date]; }
      export default function* () {
        const r = yield auto(kinds, { n: 10n ** 20n, when: new Date(0) });
        yield llm('kinds ' + JSON.stringify(r.value));
      }`,
    });
    const a = await tool(hub, 'script.start', { name: 'big' });
    expect(a.text).toContain('kinds ["bigint",true]');
    const journal = await hub.services.store.scriptRuns.journal(a.runId as string);
    const step = journal.find((e) => e.type === 'auto_step') as { inputs: { kwargs: unknown } };
    expect(step.inputs.kwargs).toEqual({ n: '100000000000000000000', when: '1970-01-01T00:00:00.000Z' });
  });

  it('refuses an unknown script without touching the stack', async () => {
    const a = await tool(hub, 'script.start', { name: 'no-such-script' });
    expect(a).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(a.text).toContain("No script named 'no-such-script'");
    expect(a.text).toContain('script__list');
    expect((await tool(hub, 'script.status')).state).toBe('idle');
  });

  it('names the file and what it must export when a compiled module has no generator', async () => {
    projectScripts(hub.dir, { 'nl/bad.md': nl('bad'), 'compiled/bad.mjs': 'export const answer = 42;\n' });
    const a = await tool(hub, 'script.start', { name: 'bad' });
    expect(a).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(a.text).toContain(join('compiled', 'bad.mjs'));
    expect(a.text).toContain('export default function* (request)');
  });

  it('names the file and the error when a compiled module does not load', async () => {
    projectScripts(hub.dir, { 'nl/broken.md': nl('broken'), 'compiled/broken.mjs': 'export default function* ( {\n' });
    const a = await tool(hub, 'script.start', { name: 'broken' });
    expect(a).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(a.text).toMatch(/Compiled script .*broken\.mjs failed to load: /);
  });

  it('falls back when the script itself throws or yields something that is not a step', async () => {
    projectScripts(hub.dir, {
      'nl/raiser.md': '# Raiser\n\nRaise by hand.\n',
      'compiled/raiser.mjs': `${imports}export default function* () { yield auto('echo ok'); throw new TypeError('bad state'); }`,
      'nl/yielder.md': '# Yielder\n',
      'compiled/yielder.mjs': `${imports}export default function* () { yield 42; }`,
    });
    const raised = await tool(hub, 'script.start', { name: 'raiser' });
    expect(raised.state).toBe('fallback');
    expect(raised.text).toContain('- `raiser[0]`: ✗ the script raised TypeError: bad state');
    expect(raised.text).toContain('Raise by hand.');
    expect((await tool(hub, 'script.finish_nl_script')).state).toBe('finished');
    const yielded = await tool(hub, 'script.start', { name: 'yielder' });
    expect(yielded.state).toBe('fallback');
    expect(yielded.text).toContain('The script yielded number, not a step made with auto(), llm() or callScript().');
  });

  it('runs an argv step without a shell: each argument reaches the program as given, shown quoted', async () => {
    projectScripts(hub.dir, {
      'nl/argv.md': nl('argv'),
      'compiled/argv.mjs': `${imports}export default function* (request) {
        const r = yield auto(['printf', '%s|', 'a b', request, "it's"]);
        yield auto(['sh', '-c', 'exit 4']);
        yield llm('after ' + r.output);
      }`,
    });
    const a = await tool(hub, 'script.start', { name: 'argv', arguments: '$(touch PWNED)' });
    expect(a.text).toContain(
      "- `argv[0]`: ✓ `printf '%s|' 'a b' '$(touch PWNED)' 'it'\\''s'`\n\n  <output>\n  a b|$(touch PWNED)|it's|\n",
    );
    expect(existsSync(join(hub.dir, 'PWNED'))).toBe(false);
    // A failing argv command is handed to the agent like a failing shell command.
    expect(a.state).toBe('shell_failure');
    expect(a.text).toContain("The command `sh -c 'exit 4'` exited with code 4.");
    const b = await tool(hub, 'script.continue_compiled_script', { outputs: { success: true } });
    expect(b.text).toContain("after a b|$(touch PWNED)|it's|");
  });

  it('falls back with what auto() expects when an argv step is empty or holds a non-string, or its program is missing', async () => {
    projectScripts(hub.dir, {
      'nl/empty.md': nl('empty'),
      'compiled/empty.mjs': `${imports}export default function* () { yield auto([]); }`,
      'nl/numbers.md': nl('numbers'),
      'compiled/numbers.mjs': `${imports}export default function* () { yield auto(['echo', 42]); }`,
      'nl/missing.md': nl('missing'),
      'compiled/missing.mjs': `${imports}export default function* () { yield auto(['no-such-program-xyz', 'a']); }`,
    });
    const expected = 'auto(argv) expects a non-empty array of strings (the program, then its arguments)';
    const empty = await tool(hub, 'script.start', { name: 'empty' });
    expect(empty).toMatchObject({ state: 'fallback' });
    expect(empty.text).toContain(`${expected}, got [].`);
    await tool(hub, 'script.finish_nl_script');
    const numbers = await tool(hub, 'script.start', { name: 'numbers' });
    expect(numbers.text).toContain(`${expected}, got ["echo",42].`);
    await tool(hub, 'script.finish_nl_script');
    const missing = await tool(hub, 'script.start', { name: 'missing' });
    expect(missing).toMatchObject({ state: 'fallback' });
    expect(missing.text).toContain(
      "- `missing[0]`: ✗ `no-such-program-xyz a` raised Could not run 'no-such-program-xyz'",
    );
  });

  it('runs auto steps in working_dir but resolves scripts from the project', async () => {
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'switchboard-wd-')));
    try {
      await hub.value('system.config', { action: 'patch', patch: { workspace: { extra_dirs: [elsewhere] } } });
      projectScripts(hub.dir, {
        'nl/where.md': nl('where'),
        'compiled/where.mjs': `${imports}export default function* () { yield auto('pwd'); yield llm('ok?'); }`,
      });
      // A same-named script in the working directory must not be picked.
      projectScripts(elsewhere, { 'nl/where.md': nl('wrong one') });
      const a = await tool(hub, 'script.start', { name: 'where', working_dir: elsewhere });
      expect(a.state).toBe('llm');
      expect(a.text).toContain(`<output>\n  ${elsewhere}\n  </output>`);
      // mekara's clients send `working_dir: null` for "not given": the project directory.
      const b = await tool(hub, 'script.start', { name: 'where', working_dir: null });
      expect(b.state).toBe('llm');
      expect(b.text).toContain(`<output>\n  ${realpathSync(hub.dir)}\n  </output>`);
      const missing = await tool(hub, 'script.start', { name: 'where', working_dir: 'no/such/dir' });
      expect(missing).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
      // The caller sees the path relative to the project (src/core/confine.ts shows it so).
      expect(missing.text).toBe("working_dir: 'no/such/dir' is not a directory.");
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('refuses a working_dir outside the project and [workspace] extra_dirs, symlinks resolved, before any step runs', async () => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'switchboard-outside-')));
    try {
      projectScripts(hub.dir, {
        'nl/where.md': nl('where'),
        'compiled/where.mjs': `${imports}export default function* () { yield auto('pwd > ran-here'); }`,
      });
      const etc = await tool(hub, 'script.start', { name: 'where', working_dir: '/etc' });
      expect(etc).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
      expect(etc.text).toBe(
        "working_dir: '/etc' is outside the directories sessions and scripts may work in: the project (.). Give a directory inside them, or add it to [workspace] extra_dirs in the configuration.",
      );
      symlinkSync(outside, join(hub.dir, 'link-out'));
      const linked = await tool(hub, 'script.start', { name: 'where', working_dir: 'link-out' });
      expect(linked).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
      // Where the link leads, relative to the project: never the absolute folders around it.
      expect(linked.text).toContain(
        `working_dir: 'link-out' (it resolves to ${relative(realpathSync(hub.dir), outside)}) is outside`,
      );
      expect(existsSync(join(outside, 'ran-here'))).toBe(false);
      expect(await hub.services.store.scriptRuns.list()).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('nesting', () => {
  beforeEach(() => {
    projectScripts(hub.dir, {
      'nl/parent.md': nl('parent'),
      'compiled/parent.mjs': `${imports}export default function* () {
        yield auto('echo parent-a');
        const r = yield callScript('child', 'from parent');
        yield auto('echo child-said-' + r.success);
        yield llm('parent question', { expects: { answer: 'an answer' } });
      }`,
      'nl/child.md': nl('child'),
      'compiled/child.mjs': `${imports}export default function* (request) {
        yield auto('echo child-b ' + JSON.stringify(request));
        yield llm('child question');
      }`,
      'nl/manual.md': '# Manual\n\nWrite a haiku about $ARGUMENTS.\n',
      'nl/caller-of-missing.md': nl('caller'),
      'compiled/caller-of-missing.mjs': `${imports}export default function* () { yield auto('echo before'); yield callScript('does-not-exist'); yield auto('echo never'); }`,
      'nl/thrower.md': '# Thrower\n\nDo the thrower thing by hand.\n',
      'compiled/thrower.mjs': `${imports}
      import { writeFileSync } from 'node:fs';
      function explode() { throw new Error('disk on fire'); }
      export default function* () {
        try { yield auto('echo t1'); yield auto(explode, {}); yield auto('echo never-runs'); }
        finally { writeFileSync(${JSON.stringify(join(hub.dir, 'cleaned-up'))}, 'yes'); }
      }`,
      'nl/outer.md': nl('outer'),
      'compiled/outer.mjs': `${imports}export default function* () { const r = yield callScript('thrower'); yield auto('echo outer-went-on'); }`,
    });
  });

  it('pushes a frame for callScript, shows the stack, and pops back into a parent that goes on by itself', async () => {
    const a = await tool(hub, 'script.start', { name: 'parent' });
    expect(a.state).toBe('llm');
    expect(a.text).toContain('- `parent[0]`: ✓ `echo parent-a`');
    expect(a.text).toContain('- `child[0]`: ✓ `echo child-b "from parent"`');
    expect(a.text).toContain('### Pending LLM step: `parent[1] > child[1]`');
    const b = await tool(hub, 'script.continue_compiled_script', { outputs: {} });
    expect(b.text).toContain(
      '- `child[1]`: ✓ LLM step completed\n- `child`: ✓ script completed\n- `parent[2]`: ✓ `echo child-said-true`',
    );
    expect(b.text).toContain('### Pending LLM step: `parent[3]`');
    const status = await tool(hub, 'script.status');
    expect(status.text).toContain('Stack: `parent[3]`');
    expect(status.state).toBe('llm');
  });

  it('runs an NL script called with callScript as a frame the agent finishes, then the parent goes on', async () => {
    projectScripts(hub.dir, {
      'nl/calls-nl.md': nl('calls-nl'),
      'compiled/calls-nl.mjs': `${imports}export default function* () {
        const r = yield callScript('manual', 'snow');
        yield auto('echo after-nl-' + r.success + '-' + r.exception);
      }`,
    });
    const a = await tool(hub, 'script.start', { name: 'calls-nl' });
    expect(a).toMatchObject({ state: 'nl', nextTool: 'script__finish_nl_script' });
    expect(a.text).toContain('### Pending NL script: `calls-nl[0] > manual`');
    expect(a.text).toContain('Write a haiku about snow.');
    const b = await tool(hub, 'script.finish_nl_script');
    expect(b.text).toContain('- `manual`: ✓ NL script completed\n- `calls-nl[1]`: ✓ `echo after-nl-true-null`');
    expect(b.state).toBe('finished');
  });

  it('a script started by hand during an LLM step returns to that LLM step', async () => {
    await tool(hub, 'script.start', { name: 'parent' });
    const manual = await tool(hub, 'script.start', { name: 'manual', arguments: 'rain' });
    expect(manual).toMatchObject({ state: 'nl', nextTool: 'script__finish_nl_script' });
    expect(manual.text).toContain('### Pending NL script: `parent[1] > child[1] > manual`');
    expect(manual.text).toContain('Write a haiku about rain.');
    const back = await tool(hub, 'script.finish_nl_script');
    expect(back.text).toContain('- `manual`: ✓ NL script completed');
    // The child's LLM step is pending again, not advanced.
    expect(back).toMatchObject({ state: 'llm' });
    expect(back.text).toContain('### Pending LLM step: `parent[1] > child[1]`');
    expect(back.text).toContain('child question');
  });

  it('runs a nested script in the working_dir callScript gives, relative to the caller', async () => {
    projectScripts(hub.dir, {
      'nl/sub.md': nl('sub'),
      'compiled/sub.mjs': `${imports}export default function* () { yield callScript('where-am-i', '', { working_dir: 'nested/dir' }); yield llm('ok?'); }`,
      'nl/where-am-i.md': nl('where'),
      'compiled/where-am-i.mjs': `${imports}export default function* () { yield auto('pwd'); }`,
    });
    writeFiles(hub.dir, { 'nested/dir/.keep': '' });
    const a = await tool(hub, 'script.start', { name: 'sub' });
    expect(a.text).toContain(`<output>\n  ${join(hub.dir, 'nested/dir')}\n  </output>`);
  });

  it('a callScript working_dir outside the workspace halts the parent, naming what is allowed', async () => {
    projectScripts(hub.dir, {
      'nl/escape.md': nl('escape'),
      'compiled/escape.mjs': `${imports}export default function* () { yield callScript('where-am-i', '', { working_dir: '../..' }); yield auto('echo never'); }`,
      'nl/where-am-i.md': nl('where'),
      'compiled/where-am-i.mjs': `${imports}export default function* () { yield auto('pwd'); }`,
    });
    const a = await tool(hub, 'script.start', { name: 'escape' });
    expect(a).toMatchObject({ state: 'fallback', nextTool: 'script__finish_nl_script' });
    expect(a.text).toContain("The call to script `where-am-i` failed. working_dir: '");
    expect(a.text).toContain('is outside the directories sessions and scripts may work in: the project (.)');
    expect(a.text).not.toContain('never');
    expect(a.text).not.toContain('`pwd`');
  });

  it('a missing nested script halts the parent', async () => {
    const a = await tool(hub, 'script.start', { name: 'caller-of-missing' });
    expect(a).toMatchObject({ state: 'fallback', nextTool: 'script__finish_nl_script' });
    expect(a.text).toContain('The call to script `does-not-exist` failed.');
    expect(a.text).not.toContain('never');
    const done = await tool(hub, 'script.finish_nl_script');
    expect(done.state).toBe('finished');
  });

  it('an auto exception falls back to the NL instructions; finishing it by hand halts the parent', async () => {
    const a = await tool(hub, 'script.start', { name: 'outer' });
    expect(a.state).toBe('fallback');
    expect(a.text).toContain('- `thrower[1]`: ✗ `explode(…)` raised Error: disk on fire');
    expect(a.text).toContain('### Script failed: `outer[0] > thrower[1]`');
    expect(a.text).toContain('Do the thrower thing by hand.');
    expect(a.text).toContain('call `script__finish_nl_script`');
    expect(existsSync(join(hub.dir, 'cleaned-up'))).toBe(false);
    const b = await tool(hub, 'script.finish_nl_script');
    expect(b.state).toBe('fallback');
    expect(b.text).toContain('- `thrower[1]`: ✗ completed by hand after the failure');
    // Finishing a failed script ends its generator, so its cleanup ran.
    expect(existsSync(join(hub.dir, 'cleaned-up'))).toBe(true);
    expect(b.text).toContain('The call to script `thrower` failed.');
    expect(b.text).toContain('### Script failed: `outer[0]`');
    expect(b.text).not.toContain('outer-went-on');
    expect((await tool(hub, 'script.finish_nl_script')).state).toBe('finished');
  });
});

describe('resuming', () => {
  beforeEach(() => {
    projectScripts(hub.dir, {
      'nl/ask.md': nl('ask'),
      'compiled/ask.mjs': `${imports}export default function* () { yield llm('q', { expects: { a: 'the answer', b: 'another' } }); yield auto('echo after'); }`,
      'nl/plain.md': '# Plain\n\nJust do it.\n',
      'nl/fails.md': nl('fails'),
      'compiled/fails.mjs': `${imports}export default function* () {
        const r = yield auto('echo boom; echo oops >&2; exit 3');
        yield auto('echo verdict ' + r.success + ' ' + r.exit_code + ' ' + JSON.stringify(r.outputs));
        yield llm('end');
      }`,
    });
  });

  it('refuses finish_nl_script on a compiled step, naming continue_compiled_script, and changes nothing', async () => {
    await tool(hub, 'script.start', { name: 'ask' });
    const wrong = await tool(hub, 'script.finish_nl_script');
    expect(wrong).toMatchObject({ ok: false, code: 'CONFLICT' });
    expect(wrong.text).toContain('call script__continue_compiled_script');
    expect((await tool(hub, 'script.status')).state).toBe('llm');
  });

  it('refuses continue_compiled_script on an NL script, naming finish_nl_script', async () => {
    await tool(hub, 'script.start', { name: 'plain' });
    const wrong = await tool(hub, 'script.continue_compiled_script', { outputs: {} });
    expect(wrong).toMatchObject({ ok: false, code: 'CONFLICT' });
    expect(wrong.text).toContain('call script__finish_nl_script instead');
    expect((await tool(hub, 'script.status')).state).toBe('nl');
  });

  it('refuses both resume tools when nothing runs', async () => {
    for (const name of ['script.continue_compiled_script', 'script.finish_nl_script']) {
      const a = await tool(hub, name, name.includes('continue') ? { outputs: {} } : {});
      expect(a).toMatchObject({ ok: false, code: 'CONFLICT' });
      expect(a.text).toContain('script__start');
    }
  });

  it('refuses outputs missing an expected key, naming it, and does not advance', async () => {
    await tool(hub, 'script.start', { name: 'ask' });
    const a = await tool(hub, 'script.continue_compiled_script', { outputs: { a: 1 } });
    expect(a).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(a.text).toContain("outputs is missing 'b'");
    expect(a.text).toContain("'b' (another)");
    const ok = await tool(hub, 'script.continue_compiled_script', { outputs: { a: 1, b: 2 } });
    expect(ok.text).toContain('`echo after`');
  });

  it('turns a failed command into an LLM step with the command, exit code and output', async () => {
    const a = await tool(hub, 'script.start', { name: 'fails' });
    expect(a).toMatchObject({ state: 'shell_failure', nextTool: 'script__continue_compiled_script' });
    expect(a.text).toContain('- `fails[0]`: ✗ `echo boom; echo oops >&2; exit 3` exited with 3');
    expect(a.text).toContain('The command `echo boom; echo oops >&2; exit 3` exited with code 3.');
    expect(a.text).toContain('boom\n  oops');
    expect(a.text).toContain('- `success`:');
    const b = await tool(hub, 'script.continue_compiled_script', { outputs: { success: false, note: 'left it' } });
    expect(b.text).toContain('verdict false 3 {"success":false,"note":"left it"}');
  });

  it('lets the agent resolve a failed command so the script goes on as if it succeeded', async () => {
    await tool(hub, 'script.start', { name: 'fails' });
    const b = await tool(hub, 'script.continue_compiled_script', { outputs: { success: true } });
    expect(b.text).toContain('verdict true 3');
  });
});

describe('cancelling', () => {
  it('kills the running command with its process group and falls back, keeping the run', async () => {
    const pidFile = join(hub.dir, 'pid');
    projectScripts(hub.dir, {
      'nl/slow.md': '# Slow\n\nWait a long time, then report.\n',
      'compiled/slow.mjs': `${imports}export default function* () {
        yield auto('sh -c "echo $$ > ${pidFile}; exec sleep 30" & wait');
        yield auto('echo never');
      }`,
    });
    const controller = new AbortController();
    const call = hub.pipeline.call({
      principal: { id: 'test', roles: ['*'] },
      name: 'script.start',
      input: { name: 'slow' },
      transport: 'cli',
      signal: controller.signal,
    });
    const pid = await pidFrom(pidFile);
    controller.abort();
    const out = await call;
    expect(out).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    expect(await gone(pid)).toBe(true);
    // The call answered CANCELLED at once; the executor records the killed step a moment later.
    const status = await until(
      async () => {
        const now = await tool(hub, 'script.status');
        return now.state !== 'running' && now;
      },
      { timeoutMs: 2_000, what: 'the killed step recorded' },
    );
    expect(status.state).toBe('fallback');
    expect(status.text).toContain('The step `slow[0]` failed');
    expect(status.text).not.toContain('echo never');
  });
});

describe('status during a long step', () => {
  it('answers at once with the running step instead of waiting for it', async () => {
    // The step runs until the test creates the gate file, so "running" below cannot race a slow machine.
    const pidFile = join(hub.dir, 'pid');
    const gateFile = join(hub.dir, 'gate');
    const step = `echo $$ > ${pidFile}; until [ -e ${gateFile} ]; do sleep 0.02; done`;
    projectScripts(hub.dir, {
      'nl/long.md': nl('long'),
      'compiled/long.mjs': `${imports}export default function* () { yield auto('${step}'); yield llm('done?'); }`,
    });
    const start = tool(hub, 'script.start', { name: 'long' });
    await pidFrom(pidFile);
    const status = await tool(hub, 'script.status');
    expect(status).toMatchObject({ ok: true, state: 'running' });
    expect(status.text).toContain(`Another call is running this script now (the auto step \`${step}\`)`);
    writeFileSync(gateFile, '');
    expect((await start).state).toBe('llm');
    expect((await tool(hub, 'script.status')).state).toBe('llm');
  });
});

describe('clients', () => {
  const alice: Principal = { id: 'alice', roles: ['*'] };
  const bob: Principal = { id: 'bob', roles: ['*'] };

  beforeEach(() => {
    projectScripts(hub.dir, {
      'nl/ask.md': nl('ask'),
      'compiled/ask.mjs': `${imports}export default function* (r) { yield llm('question ' + r); }`,
    });
  });

  it('keeps one stack per client', async () => {
    await tool(hub, 'script.start', { name: 'ask', arguments: 'A' }, alice);
    expect((await tool(hub, 'script.status', {}, bob)).state).toBe('idle');
    await tool(hub, 'script.start', { name: 'ask', arguments: 'B' }, bob);
    expect((await tool(hub, 'script.status', {}, alice)).text).toContain('question A');
    expect((await tool(hub, 'script.status', {}, bob)).text).toContain('question B');
    expect((await tool(hub, 'script.status', {}, alice)).text).not.toContain('ask[0] > ask');
  });

  it('lets an idle run leave memory and rebuilds it from the journal when its client returns', async () => {
    const logs: string[] = [];
    const logged = await testHub({
      logger: createLogger('info', { write: (line: string) => logs.push(line) } as never),
    });
    try {
      projectScripts(logged.dir, {
        'nl/count.md': nl('count'),
        'compiled/count.mjs': `${imports}export default function* () { yield auto('echo x >> count.log'); yield llm('q'); }`,
      });
      await tool(logged, 'script.start', { name: 'count' }, alice);
      const restored = () => logs.filter((l) => l.includes('restored from its journal')).length;
      await tool(logged, 'script.status', {}, alice);
      expect(restored()).toBe(0);
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 2 * 60 * 60 * 1000);
        // Any call sweeps idle runs: alice's has been idle for two hours.
        await tool(logged, 'script.start', { name: 'ask', arguments: 'B' }, bob);
        const status = await tool(logged, 'script.status', {}, alice);
        expect(status.text).toContain('Stack: `count[1]`');
      } finally {
        vi.useRealTimers();
      }
      expect(restored()).toBe(1);
      expect(readFileSync(join(logged.dir, 'count.log'), 'utf8')).toBe('x\n');
    } finally {
      await logged.close();
    }
  });

  it("refuses another principal's run_id", async () => {
    const a = await tool(hub, 'script.start', { name: 'ask' }, alice);
    const b = await tool(hub, 'script.status', { run_id: a.runId }, bob);
    expect(b).toMatchObject({ ok: false, code: 'FORBIDDEN' });
  });

  it('asks stateless callers for the run_id that start returned', async () => {
    const rest = (name: string, input: Record<string, unknown>) =>
      hub.pipeline.call({ principal: alice, name, input, transport: 'rest' });
    const started = await rest('script.start', { name: 'ask', arguments: 'R' });
    expect(started.ok).toBe(true);
    const runId = (started.ok && (started.value as { run_id: string }).run_id) as string;
    expect(runId).toMatch(/^run-/);
    const without = await rest('script.status', {});
    expect(without).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(!without.ok && without.error.message).toContain('pass the run_id that script__start returned');
    const withId = await rest('script.continue_compiled_script', { outputs: {}, run_id: runId });
    expect(withId.ok && (withId.value as { state: string }).state).toBe('finished');
    const gone = await rest('script.status', { run_id: runId });
    expect(gone).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});

describe('script.list and script.write_bundled', () => {
  it('lists project, user and bundled scripts with their kind', async () => {
    projectScripts(hub.dir, { 'nl/mine.md': '---\ndescription: my own flow\n---\nbody' });
    // testHub points SWITCHBOARD_HOME at <dir>/.home: the user level.
    writeFiles(join(hub.dir, '.home', 'scripts'), { 'nl/personal.md': '# Personal\n\nMy personal routine.\n' });
    const { scripts } = await hub.value('script.list');
    expect(scripts).toContainEqual({
      name: 'mine',
      level: 'project',
      kind: 'nl',
      compiled_level: null,
      compiled_language: null,
      description: 'my own flow',
    });
    expect(scripts).toContainEqual(
      expect.objectContaining({
        name: 'test:random',
        level: 'bundled',
        kind: 'compiled',
        compiled_language: 'javascript',
      }),
    );
    expect(scripts).toContainEqual(expect.objectContaining({ name: 'release-notes', level: 'bundled', kind: 'nl' }));
    expect(scripts).toContainEqual(expect.objectContaining({ name: 'personal', level: 'user', kind: 'nl' }));
    const started = await tool(hub, 'script.start', { name: 'personal' });
    expect(started.text).toContain('My personal routine.');
  });

  it('copies a bundled script into the project and refuses to overwrite without force', async () => {
    const first = await hub.value('script.write_bundled', { name: 'test:random' });
    expect(first.written.sort()).toEqual([
      join('.switchboard', 'scripts', 'compiled', 'test', 'random.mjs'),
      join('.switchboard', 'scripts', 'nl', 'test', 'random.md'),
    ]);
    const { scripts } = await hub.value('script.list');
    expect(scripts).toContainEqual(
      expect.objectContaining({ name: 'test:random', level: 'project', compiled_level: 'project' }),
    );
    const again = await tool(hub, 'script.write_bundled', { name: 'test:random' });
    expect(again).toMatchObject({ ok: false, code: 'CONFLICT' });
    expect(again.text).toContain('pass force: true');
    expect((await tool(hub, 'script.write_bundled', { name: 'test:random', force: true })).ok).toBe(true);
    const missing = await tool(hub, 'script.write_bundled', { name: 'nope' });
    expect(missing).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(existsSync(join(hub.dir, '.switchboard/scripts/nl/test/random.md'))).toBe(true);
    expect(readFileSync(join(hub.dir, '.switchboard/scripts/nl/test/random.md'), 'utf8')).toContain('Random number');
  });
});

describe('scripts as prompts', () => {
  it('serves NL scripts as prompts and follows the script folders while the hub runs', async () => {
    await hub.ready();
    const registry = hub.services.registry;
    expect(registry.getPrompt('test:random')).toBeDefined();
    expect(registry.getPrompt('fresh')).toBeUndefined();
    projectScripts(hub.dir, {
      'nl/fresh.md': '---\ndescription: new here\n---\nDo the fresh thing with $ARGUMENTS.\n',
    });
    await until(() => registry.getPrompt('fresh'), { timeoutMs: 5_000, what: 'the new prompt' });
    const prompt = registry.getPrompt('fresh');
    expect(prompt?.description).toBe('new here');
    const got = (await prompt?.get({ arguments: 'style' }, {} as never)) as unknown as {
      messages: { content: { text: string } }[];
    };
    expect(got.messages[0].content.text).toBe('Do the fresh thing with style.\n');
    rmSync(join(hub.dir, '.switchboard/scripts/nl/fresh.md'));
    await until(() => !registry.getPrompt('fresh'), { timeoutMs: 5_000, what: 'the prompt to go' });
    expect(registry.getPrompt('fresh')).toBeUndefined();
  });
});

describe('[scripts] enabled = false', () => {
  it('serves no script tools or prompts and reports the feature as disabled by policy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-noscripts-'));
    writeFiles(dir, { '.switchboard/config.toml': '[scripts]\nenabled = false\n' });
    const disabled = await testHub({ cwd: dir });
    try {
      expect(disabled.services.registry.get('script.start')).toBeUndefined();
      expect(disabled.services.registry.getPrompt('test:random')).toBeUndefined();
      expect(disabled.services.features.list().find((f) => f.name === 'scripts')).toMatchObject({
        status: 'DisabledByPolicy',
      });
      expect(hub.services.registry.get('script.start')).toBeDefined();
    } finally {
      await disabled.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
