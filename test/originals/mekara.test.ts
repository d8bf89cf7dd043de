// mekara's own data files, read from ../shared/originals/mekara: its NL scripts listed and run from a project's
// `.mekara/scripts`, and its two cassettes — mcp-nested.yaml replayed (with our compiled scripts that yield the steps
// it records, test/fixtures/mekara-format/mcp-nested-replay) or refused when it differs or is malformed, naming the
// entry and field, and write-bundled.yaml refused. Our own mekara-format files are tested in
// test/sources/scripts/mekara.test.ts.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { original } from '../helpers/originals.ts';
import { replayCassetteFile } from '../helpers/vcr.ts';
import { type ToolAnswer, tool } from '../sources/scripts/helpers.ts';

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

  function copy(mutate: (data: any) => void): string {
    const file = join(tempDir('switchboard-mekara-cassette-'), 'cassette.yaml');
    const data = parse(readFileSync(nested(), 'utf8'));
    mutate(data);
    writeFileSync(file, stringify(data));
    return file;
  }

  async function failure(file: string, project = replayProject()): Promise<Error> {
    try {
      await replayCassetteFile(file, project, env);
    } catch (err) {
      return err as Error;
    }
    throw new Error('the replay succeeded, but a failure was expected');
  }

  it("replays mcp-nested.yaml through our Python scripts and mekara's NL script without running a step", async () => {
    const project = replayProject();
    rmSync(RESULT_FILE, { force: true });
    expect(await replayCassetteFile(nested(), project, env)).toEqual({ calls: 6, events: 17 });
    expect(existsSync(RESULT_FILE)).toBe(false);
  });

  it('fails when a recorded auto step differs from what the script does', async () => {
    const file = copy((d) => {
      d.events[1].inputs.action = 'shuf -i 1-10 -n 1';
    });
    const err = await failure(file);
    expect(err.message).toContain('VCR replay mismatch at event 2 of a mekara cassette');
    expect(err.message).toContain('Expected: auto_step shell "shuf -i 1-10 -n 1"');
    expect(err.message).toContain('Actual: auto_step shell "shuf -i 1-100 -n 1"');
  });

  it('fails when mekara says something else is pending, or elsewhere on the stack', async () => {
    const moved = copy((d) => {
      d.events[2].output = d.events[2].output.replace(
        'test:nested[0] > test:random[1]',
        'test:nested[0] > test:random[2]',
      );
    });
    expect((await failure(moved)).message).toContain(
      "mekara's stack is `test:nested[0] > test:random[2]`; Switchboard's is `test:nested[0] > test:random[1]`",
    );
    const ended = copy((d) => {
      d.events[2].output = d.events[16].output; // mekara's "all steps completed" answer, one call too early
    });
    expect((await failure(ended)).message).toContain(
      "mekara's output shows a pending finished state; Switchboard's is llm",
    );
  });

  it('keeps a recorded 0.0 a float: the script echoes 0.0 as it did when recorded', async () => {
    const file = copy((d) => {
      d.events[9].result.value = 0; // what a JSON reader would make of 0.0
      d.events[9].inputs.kwargs.number = 0;
    });
    const err = await failure(file);
    expect(err.message).toContain('Expected: auto_step call "_double_or_nothing" kwargs={"number":0}');
    expect(err.message).toContain('Actual: auto_step call "_double_or_nothing" kwargs={"number":{"$float":0}}');
  });

  it("refuses write-bundled.yaml: mekara's own package files, naming the entry and field", async () => {
    const err = await failure(original('mekara', 'cassettes', 'write-bundled.yaml'), mekaraNlProject());
    expect(err).toMatchObject({ code: 'INVALID_INPUT' });
    expect(err.message).toContain("write-bundled.yaml: event 1 (mcp_tool_input), field 'tool'");
    expect(err.message).toContain("write_bundled copies mekara's own bundled scripts");
    expect(err.message).toContain('but it is "write_bundled"');
  });

  it('answers a malformed entry with INVALID_INPUT naming the event and the field', async () => {
    const project = replayProject();
    const cases: [(d: any) => void, string][] = [
      [
        (d) => delete d.events[1].result.exit_code,
        "event 2 (auto_step), field 'result.exit_code': expected an integer, but it is missing",
      ],
      [
        (d) => (d.events[1].result.type = 'boom'),
        "event 2 (auto_step), field 'result.type': expected shell, call or exception",
      ],
      [(d) => (d.events[1].inputs = 'x'), "event 2 (auto_step), field 'inputs': expected a mapping"],
      [
        (d) => (d.events[3].tool = 'resume'),
        "event 4 (mcp_tool_input), field 'tool': expected one of mekara's run tools",
      ],
      [(d) => (d.events[2].output = 7), "event 3 (mcp_tool_output), field 'output': expected a string, but it is 7"],
      [(d) => (d.events[5] = null), "event 6, field '(the event)': expected a mapping with a type"],
    ];
    for (const [mutate, message] of cases) {
      const err = await failure(copy(mutate), project);
      expect(err).toMatchObject({ code: 'INVALID_INPUT' });
      expect(err.message).toContain(message);
    }
  });
});
