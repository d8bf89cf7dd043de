// VCR: a hub with SWITCHBOARD_VCR_CASSETTE (or MEKARA_VCR_CASSETTE, in mekara's format) records every script call;
// replay runs the real executor with the recorded auto-step results (no command runs) and names the first
// difference. Kept cassettes stay replayable.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { testHub } from '../../helpers/hub.ts';
import { replayCassetteFile } from '../../helpers/vcr.ts';
import { nl, projectScripts, tool } from './helpers.ts';

const SRC = join(import.meta.dirname, '../../../src/index.ts');
const imports = `import { auto, llm, callScript } from ${JSON.stringify(SRC)};\n`;
const FIXTURES = join(import.meta.dirname, '../../fixtures');
const env = { ...process.env, SWITCHBOARD_HOME: join(tmpdir(), 'switchboard-vcr-nohome') };

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'switchboard-vcr-'));
  dirs.push(d);
  return d;
}

describe('kept cassettes', () => {
  for (const name of ['nested', 'fallback', 'failure']) {
    it(`replays ${name}.yaml with no difference`, async () => {
      const result = await replayCassetteFile(
        join(FIXTURES, 'cassettes', `${name}.yaml`),
        join(FIXTURES, 'scripts-project'),
        env,
      );
      expect(result.calls).toBeGreaterThanOrEqual(4);
    });
  }
});

/** The error a replay fails with; fails the test when the replay succeeds. */
async function mismatchOf(cassette: string, dir: string): Promise<Error> {
  try {
    await replayCassetteFile(cassette, dir, env);
  } catch (err) {
    return err as Error;
  }
  throw new Error('the replay succeeded, but a mismatch was expected');
}

/** A project whose steps leave traces on disk, and a recorded run of it. */
async function recordRun() {
  const dir = tempDir();
  const cassette = join(dir, 'run.yaml');
  const counter = join(dir, 'calls.log');
  projectScripts(dir, {
    'nl/traced.md': nl('traced'),
    'compiled/traced.mjs': `${imports}
    import { appendFileSync } from 'node:fs';
    function count({ file }) { appendFileSync(file, 'called\\n'); return 7; }
    export default function* () {
      yield auto('echo ran > marker.txt; echo $RANDOM');
      const c = yield auto(count, { file: ${JSON.stringify(counter)} });
      yield callScript('inner', String(c.value));
      yield llm('pick', { expects: { pick: 'a pick' } });
      yield auto('echo picked');
    }`,
    'nl/inner.md': nl('inner'),
    'compiled/inner.mjs': `${imports}export default function* (r) { yield auto('echo inner ' + r); }`,
  });
  const hub = await testHub({ cwd: dir, env: { SWITCHBOARD_VCR_CASSETTE: cassette } });
  const outputs = [
    await tool(hub, 'script.start', { name: 'traced' }),
    await tool(hub, 'script.finish_nl_script'),
    await tool(hub, 'script.status'),
    await tool(hub, 'script.continue_compiled_script', { outputs: { pick: 'x' } }),
  ];
  await hub.close();
  return { dir, cassette, counter, outputs };
}

describe('record and replay', () => {
  it('records in both formats at once when SWITCHBOARD_VCR_CASSETTE and MEKARA_VCR_CASSETTE name two files', async () => {
    const dir = tempDir();
    projectScripts(dir, {
      'nl/argv.md': nl('argv'),
      'compiled/argv.mjs': `${imports}export default function* () { yield auto(['echo', 'a b']); yield llm('ok?'); }`,
    });
    const hub = await testHub({
      cwd: dir,
      env: { ...env, SWITCHBOARD_VCR_CASSETTE: 'own.yaml', MEKARA_VCR_CASSETTE: 'sub/mekara.yaml' },
    });
    expect((await tool(hub, 'script.start', { name: 'argv' })).state).toBe('llm');
    await hub.close();
    const own = parse(readFileSync(join(dir, 'own.yaml'), 'utf8'));
    const theirs = parse(readFileSync(join(dir, 'sub/mekara.yaml'), 'utf8'));
    expect(own.events.map((e: { tool?: string }) => e.tool)).toEqual(['script__start', undefined, 'script__start']);
    expect(theirs.events.map((e: { tool?: string }) => e.tool)).toEqual(['start', undefined, 'start']);
    // A command given as an argument array stays one (mekara has no such step); both replay.
    expect(theirs.events[1].inputs).toEqual({ action_type: 'argv', action: ['echo', 'a b'], context: {} });
    expect(theirs.events[1].result).toEqual({ type: 'shell', success: true, exit_code: 0, output: 'a b\n' });
    await expect(replayCassetteFile(join(dir, 'own.yaml'), dir, env)).resolves.toMatchObject({ calls: 1 });
    await expect(replayCassetteFile(join(dir, 'sub/mekara.yaml'), dir, env)).resolves.toMatchObject({ calls: 1 });
  });

  it('records tool inputs, auto steps and tool outputs as YAML', async () => {
    const { dir, cassette, outputs } = await recordRun();
    const data = parse(readFileSync(cassette, 'utf8'));
    expect(data.initial_state).toEqual({ working_dir: dir });
    expect(data.events.map((e: { type: string }) => e.type)).toEqual([
      'mcp_tool_input',
      'auto_step',
      'auto_step',
      'auto_step',
      'mcp_tool_output',
      'mcp_tool_input',
      'mcp_tool_output',
      'mcp_tool_input',
      'mcp_tool_output',
      'mcp_tool_input',
      'auto_step',
      'mcp_tool_output',
    ]);
    expect(data.events[1]).toMatchObject({
      working_dir: dir,
      inputs: { action_type: 'shell', action: 'echo ran > marker.txt; echo $RANDOM', context: {}, kwargs: {} },
      result: { kind: 'shell', exit_code: 0 },
    });
    expect(data.events[2]).toMatchObject({
      inputs: { action_type: 'call', action: 'count' },
      result: { kind: 'call', value: 7 },
    });
    expect(data.events[6]).toMatchObject({ tool: 'script__finish_nl_script', is_error: true });
    // What the client saw is what was recorded (the run_id footer aside).
    expect(outputs[0].text).toContain(data.events[4].output);
  });

  it('replays identically and runs no command', async () => {
    const { dir, cassette, counter } = await recordRun();
    rmSync(join(dir, 'marker.txt'));
    rmSync(counter);
    const result = await replayCassetteFile(cassette, dir, env);
    expect(result).toEqual({ calls: 4, events: 12 });
    expect(existsSync(join(dir, 'marker.txt'))).toBe(false);
    expect(existsSync(counter)).toBe(false);
  });

  it('replays even when the recorded working directory is gone', async () => {
    const { dir, cassette } = await recordRun();
    const data = parse(readFileSync(cassette, 'utf8'));
    for (const e of data.events) if (e.type === 'auto_step') e.working_dir = '/nonexistent/worktree';
    writeFileSync(cassette, stringify(data));
    await expect(replayCassetteFile(cassette, dir, env)).resolves.toMatchObject({ calls: 4 });
  });

  it('names the expected and actual output when a tool answer differs', async () => {
    const { dir, cassette } = await recordRun();
    const data = parse(readFileSync(cassette, 'utf8'));
    data.events[11].output = data.events[11].output.replace('echo picked', 'echo something else');
    writeFileSync(cassette, stringify(data));
    const err = await mismatchOf(cassette, dir);
    expect(err.message).toContain('VCR replay mismatch at event 12');
    expect(err.message).toMatch(
      /Expected: mcp_tool_output script__continue_compiled_script:[\s\S]*echo something else/,
    );
    expect(err.message).toMatch(/Actual: mcp_tool_output script__continue_compiled_script:[\s\S]*echo picked/);
    expect(err.message).toContain('re-record the cassette');
  });

  it('names the expected and actual auto step when a script changed', async () => {
    const { dir, cassette } = await recordRun();
    const file = join(dir, '.switchboard/scripts/compiled/inner.mjs');
    writeFileSync(file, readFileSync(file, 'utf8').replace("'echo inner '", "'echo INNER '"));
    const err = await mismatchOf(cassette, dir);
    expect(err.message).toContain('VCR replay mismatch at event 4');
    expect(err.message).toContain('Expected: auto_step shell "echo inner 7"');
    expect(err.message).toContain('Actual: auto_step shell "echo INNER 7"');
    expect(err.message).toContain('re-record the cassette');
  });

  it('reports recorded steps the executor no longer asks for', async () => {
    const { dir, cassette } = await recordRun();
    const file = join(dir, '.switchboard/scripts/compiled/inner.mjs');
    writeFileSync(file, `${imports}export default function* () {}`);
    const err = await mismatchOf(cassette, dir);
    expect(err.message).toContain('Expected: auto_step shell "echo inner 7"');
    expect(err.message).toContain('Actual: mcp_tool_output script__start:');
    expect(err.message).toContain('re-record the cassette');
  });

  it('reports a cassette that ends before the run does', async () => {
    const { dir, cassette } = await recordRun();
    const data = parse(readFileSync(cassette, 'utf8'));
    data.events = data.events.slice(0, 10);
    writeFileSync(cassette, stringify(data));
    const err = await mismatchOf(cassette, dir);
    expect(err.message).toContain('Expected: the end of the recording');
    expect(err.message).toContain('Actual: auto_step shell "echo picked"');
  });

  it('refuses a file that is not a cassette, naming what is expected', async () => {
    const file = join(tempDir(), 'bad.yaml');
    writeFileSync(file, 'events: 3\n');
    await expect(replayCassetteFile(file, tempDir(), env)).rejects.toThrow(
      /not a cassette: expected initial_state.working_dir and a list of events/,
    );
    writeFileSync(file, 'initial_state: {working_dir: /x}\nevents:\n  - type: nonsense\n');
    await expect(replayCassetteFile(file, tempDir(), env)).rejects.toThrow(
      /bad\.yaml: event 1 \(nonsense\), field 'type': expected mcp_tool_input, auto_step or mcp_tool_output, but it is "nonsense"/,
    );
  });
});
