// mekara's own data files, read from ../shared/originals/mekara: its NL scripts listed and run from a project's
// `.mekara/scripts`, and its two cassettes — mcp-nested.yaml replayed (with our compiled scripts that yield the steps
// it records, test/fixtures/mekara-format/mcp-nested-replay) or refused when it differs or is malformed, naming the
// entry and field, and write-bundled.yaml refused; and the session mcp-nested.yaml records, sent again with
// MEKARA_VCR_CASSETTE set, is written in the shapes of mekara's file, event for event. The cassette cases are
// written once in test/sources/scripts/mekara-cassette-cases.ts, and run on our own mekara-format files in
// test/sources/scripts/mekara.test.ts.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { original } from '../helpers/originals.ts';
import { replayCassetteFile } from '../helpers/vcr.ts';
import { type ToolAnswer, tool, writeFiles } from '../sources/scripts/helpers.ts';
import { mekaraCassetteCases } from '../sources/scripts/mekara-cassette-cases.ts';

const REPLAY_SCRIPTS = join(import.meta.dirname, '../fixtures/mekara-format/mcp-nested-replay');
const env = { ...process.env, SWITCHBOARD_HOME: join(tmpdir(), 'switchboard-mekara-nohome') };
/** What mcp-nested.yaml has test/double-or-nothing write (in /tmp), had a step run. */
const RESULT_FILE = '/tmp/resulting-number.txt';

const dirs: string[] = [];
const hubs: TestHub[] = [];
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A project whose `.mekara/scripts/nl` is mekara's. */
function mekaraNlProject(): string {
  const dir = tempDir('switchboard-mekara-original-');
  cpSync(original('mekara', 'project'), dir, { recursive: true });
  return dir;
}

function ok(answer: ToolAnswer): ToolAnswer {
  if (!answer.ok) throw new Error(`${answer.code}: ${answer.text}`);
  return answer;
}

/** Every NL file of mekara's, relative to its nl/ folder. */
function nlFiles(dir: string, under = ''): string[] {
  return readdirSync(join(dir, under), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? nlFiles(dir, join(under, e.name)) : [join(under, e.name)],
  );
}

describe("mekara's NL scripts in a project's .mekara/scripts", () => {
  const nlDir = () => original('mekara', 'project', '.mekara', 'scripts', 'nl');

  it('are listed at the mekara level as NL scripts, described by their first line', async () => {
    const hub = await testHub({ cwd: mekaraNlProject() });
    hubs.push(hub);
    const { scripts, warnings } = await hub.value('script.list');
    const files = nlFiles(nlDir());
    expect(files.sort()).toEqual([
      'setup-worktree.md',
      'teardown-worktree.md',
      'test/double-or-nothing.md',
      'test/imagine-object.md',
      'test/nested.md',
      'test/random.md',
    ]);
    for (const file of files) {
      const name = file.replace(/\.md$/, '').replace('/', ':');
      const firstLine = readFileSync(join(nlDir(), file), 'utf8').split('\n')[0];
      expect(scripts).toContainEqual(
        expect.objectContaining({ name, level: 'mekara', kind: 'nl', description: firstLine.slice(0, 200) }),
      );
    }
    expect(warnings).toEqual([]);
  });

  it('run as NL scripts: their whole text, only the first $ARGUMENTS replaced (as mekara does)', async () => {
    const hub = await testHub({ cwd: mekaraNlProject() });
    hubs.push(hub);
    const started = ok(await tool(hub, 'script.start', { name: 'setup-worktree', arguments: 'feat' }));
    expect(started.state).toBe('nl');
    const source = readFileSync(join(nlDir(), 'setup-worktree.md'), 'utf8');
    // setup-worktree.md names $ARGUMENTS in its first line and again in <UserContext>: the second stays.
    expect(source.split('$ARGUMENTS').length).toBe(3);
    expect(started.text).toContain(source.replace('$ARGUMENTS', 'feat').trim());
    expect(started.text).toContain('<UserContext>$ARGUMENTS</UserContext>');
    expect(ok(await tool(hub, 'script.finish_nl_script')).state).toBe('finished');
  });
});

describe("mekara's cassettes", () => {
  const nested = () => original('mekara', 'cassettes', 'mcp-nested.yaml');

  /**
   * A project with mekara's NL scripts and our compiled scripts for test/random, test/nested and
   * test/double-or-nothing. The sentences the cassette records (each auto step's context by the first word of its
   * action, the message test/random prints) are mekara's: they go from the cassette into recorded.json for those
   * scripts, so the repository holds none of them.
   */
  function replayProject(): string {
    const dir = mekaraNlProject();
    const compiled = join(dir, '.mekara', 'scripts', 'compiled');
    cpSync(REPLAY_SCRIPTS, compiled, { recursive: true });
    const autos = parse(readFileSync(nested(), 'utf8')).events.filter((e: any) => e.type === 'auto_step');
    const contexts = Object.fromEntries(autos.map((e: any) => [e.inputs.action.split(' ')[0], e.inputs.context]));
    const printed = autos.find((e: any) => e.inputs.action === '_print_message').inputs.kwargs.message;
    writeFileSync(join(compiled, 'test', 'recorded.json'), JSON.stringify({ contexts, printed }));
    return dir;
  }

  it("records mcp-nested.yaml's session with MEKARA_VCR_CASSETTE in mekara's shapes, event for event", async () => {
    const dir = replayProject();
    // test/double-or-nothing runs in /tmp, as in mekara's session.
    writeFiles(dir, { '.switchboard/config.toml': '[workspace]\nextra_dirs = ["/tmp"]\n' });
    const hub = await testHub({ cwd: dir, env: { ...env, MEKARA_VCR_CASSETTE: 'recorded.yaml' } });
    hubs.push(hub);
    const theirs = parse(readFileSync(nested(), 'utf8'));
    // Send what mekara's user sent, through the same tools; the guess is the number drawn now (theirs was right).
    let drawn = '';
    for (const e of theirs.events.filter((x: any) => x.type === 'mcp_tool_input')) {
      const input = { ...e.input };
      if (input.working_dir === null) delete input.working_dir;
      if (input.outputs?.guess !== undefined) input.outputs = { guess: Number(drawn) };
      const answer = ok(await tool(hub, `script.${e.tool}`, input));
      drawn ||= /<output>\n\s*(\d+)\n/.exec(answer.text)?.[1] ?? '';
    }
    await hub.close();
    rmSync(RESULT_FILE, { force: true });

    const file = join(dir, 'recorded.yaml');
    const ours = parse(readFileSync(file, 'utf8'));
    expect(ours.initial_state).toEqual({ working_dir: dir, recorded_by: 'switchboard' });
    const keys = (v: unknown) => (v && typeof v === 'object' ? Object.keys(v).sort() : []);
    expect(ours.events.map((e: any) => e.type)).toEqual(theirs.events.map((e: any) => e.type));
    ours.events.forEach((e: any, i: number) => {
      const t = theirs.events[i];
      expect(keys(e), `event ${i + 1}`).toEqual(keys(t));
      expect(e.tool).toBe(t.tool);
      if (e.type === 'mcp_tool_input')
        expect(e.input).toEqual(t.input.outputs?.guess === undefined ? t.input : { outputs: { guess: Number(drawn) } });
      if (e.type !== 'auto_step') return;
      // The same step as mekara recorded it (only the project directory and the drawn number's output differ).
      expect(e.inputs, `event ${i + 1}`).toEqual(t.inputs);
      expect(keys(e.result)).toEqual(keys(t.result));
      expect(e.result.type).toBe(t.result.type);
      if (t.working_dir === '/tmp') expect(e.working_dir).toBe('/tmp');
    });
    // 0.0 stays a float, as mekara's own file writes it.
    expect(readFileSync(file, 'utf8')).toMatch(/number: 0\.0\n/);
    await expect(replayCassetteFile(file, dir, env)).resolves.toMatchObject({ calls: 6, events: 17 });
  });

  mekaraCassetteCases({
    file: nested(),
    project: replayProject,
    env,
    written: RESULT_FILE,
    step: { recorded: 'shuf -i 1-10 -n 1', actual: 'shuf -i 1-100 -n 1' },
    stacks: { stack: 'test:nested[0] > test:random[1]', moved: 'test:nested[0] > test:random[2]' },
    // mekara's "all steps completed" answer, one call too early.
    finished: (d) => d.events[16].output,
    float: { call: '_double_or_nothing', kwarg: 'number' },
    writeBundled: { file: original('mekara', 'cassettes', 'write-bundled.yaml'), project: mekaraNlProject },
  });
});
