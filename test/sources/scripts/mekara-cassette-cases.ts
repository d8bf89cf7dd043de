// Replaying a mekara cassette, written once and run on two: ours (round.yaml, test/fixtures/mekara-format, in
// mekara.test.ts beside this file, `npm test`) and mekara's own mcp-nested.yaml (test/originals/mekara.test.ts,
// `npm run test:shared`). Both record the same run shape (a nested script whose first auto step is a shell command,
// a call at event 10 with one float argument, 17 events of which 6 are calls). mekaraCassetteCases defines the tests.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { replayCassetteFile } from '../../helpers/vcr.ts';

/** One cassette and the project whose scripts it was recorded on. */
export interface MekaraCassette {
  file: string;
  /** A fresh project holding those scripts. */
  project: () => string;
  env: NodeJS.ProcessEnv;
}

/** Runs `body` with a maker of changed copies of the cassette, removed afterwards. */
async function withCopies(
  cassette: MekaraCassette,
  body: (copy: (mutate: (data: any) => void) => string) => Promise<void>,
): Promise<void> {
  const dirs: string[] = [];
  const copy = (mutate: (data: any) => void) => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-mekara-cassette-'));
    dirs.push(dir);
    const data = parse(readFileSync(cassette.file, 'utf8'));
    mutate(data);
    const file = join(dir, 'cassette.yaml');
    writeFileSync(file, stringify(data));
    return file;
  };
  try {
    await body(copy);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** The error replaying `file` on `project` throws. */
async function replayFailure(file: string, project: string, env: NodeJS.ProcessEnv): Promise<Error> {
  try {
    await replayCassetteFile(file, project, env);
  } catch (err) {
    return err as Error;
  }
  throw new Error('the replay succeeded, but a failure was expected');
}

/** Replays the whole cassette without running a step: `written`, what a step would write, is not there. */
async function replaysWithoutRunning(cassette: MekaraCassette, written: string): Promise<void> {
  const project = cassette.project();
  rmSync(written, { force: true });
  expect(await replayCassetteFile(cassette.file, project, cassette.env)).toEqual({ calls: 6, events: 17 });
  expect(existsSync(written)).toBe(false);
}

/** The recorded first auto step (event 2) changed to `recorded` fails naming both commands. */
async function failsOnOtherStep(cassette: MekaraCassette, recorded: string, actual: string): Promise<void> {
  await withCopies(cassette, async (copy) => {
    const file = copy((d) => {
      d.events[1].inputs.action = recorded;
    });
    const err = await replayFailure(file, cassette.project(), cassette.env);
    expect(err.message).toContain('VCR replay mismatch at event 2 of a mekara cassette');
    expect(err.message).toContain(`Expected: auto_step shell "${recorded}"`);
    expect(err.message).toContain(`Actual: auto_step shell "${actual}"`);
  });
}

/**
 * mekara's output at event 3 naming the stack `moved` instead of `stack`, or the finished state (`finished`, from the
 * cassette) one call too early, fails naming both.
 */
async function failsOnOtherPending(
  cassette: MekaraCassette,
  stacks: { stack: string; moved: string },
  finished: (data: any) => string,
): Promise<void> {
  await withCopies(cassette, async (copy) => {
    const moved = copy((d) => {
      d.events[2].output = d.events[2].output.replace(stacks.stack, stacks.moved);
    });
    expect((await replayFailure(moved, cassette.project(), cassette.env)).message).toContain(
      `mekara's stack is \`${stacks.moved}\`; Switchboard's is \`${stacks.stack}\``,
    );
    const ended = copy((d) => {
      d.events[2].output = finished(d);
    });
    expect((await replayFailure(ended, cassette.project(), cassette.env)).message).toContain(
      "mekara's output shows a pending finished state; Switchboard's is llm",
    );
  });
}

/** A recorded 0.0 stays a float: the call at event 10 (`call`, its argument `kwarg`) read as the integer 0 fails. */
async function keepsFloat(cassette: MekaraCassette, call: string, kwarg: string): Promise<void> {
  await withCopies(cassette, async (copy) => {
    const file = copy((d) => {
      d.events[9].result.value = 0; // what a JSON reader would make of 0.0
      d.events[9].inputs.kwargs[kwarg] = 0;
    });
    const err = await replayFailure(file, cassette.project(), cassette.env);
    expect(err.message).toContain(`Expected: auto_step call "${call}" kwargs={"${kwarg}":0}`);
    expect(err.message).toContain(`Actual: auto_step call "${call}" kwargs={"${kwarg}":{"$float":0}}`);
  });
}

/** A write_bundled cassette (`file`) is refused: mekara's own package files, naming the entry and field. */
async function refusesWriteBundled(cassette: MekaraCassette, file: string): Promise<void> {
  const err = await replayFailure(file, cassette.project(), cassette.env);
  expect(err).toMatchObject({ code: 'INVALID_INPUT' });
  expect(err.message).toContain("write-bundled.yaml: event 1 (mcp_tool_input), field 'tool'");
  expect(err.message).toContain("write_bundled copies mekara's own bundled scripts");
  expect(err.message).toContain('but it is "write_bundled"');
}

/** A malformed entry is answered with INVALID_INPUT naming the event and the field. */
async function refusesMalformed(cassette: MekaraCassette): Promise<void> {
  const project = cassette.project();
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
  await withCopies(cassette, async (copy) => {
    for (const [mutate, message] of cases) {
      const err = await replayFailure(copy(mutate), project, cassette.env);
      expect(err).toMatchObject({ code: 'INVALID_INPUT' });
      expect(err.message).toContain(message);
    }
  });
}

/** One cassette and the values its cases need. */
export interface MekaraCassetteSet extends MekaraCassette {
  /** What a step would write, had one run. */
  written: string;
  /** A shell command to record as the first auto step, and the one the script runs. */
  step: { recorded: string; actual: string };
  /** The stack mekara's output at event 3 names, moved one step on, and its finished state (from the cassette). */
  stacks: { stack: string; moved: string };
  finished: (data: any) => string;
  /** The call at event 10 and its float argument. */
  float: { call: string; kwarg: string };
  /** A write_bundled cassette, and the project replayed on (default: the cassette's). */
  writeBundled: { file: string; project?: () => string };
}

/** Defines the replay tests on one cassette, in the calling describe. */
export function mekaraCassetteCases(c: MekaraCassetteSet): void {
  it(`replays ${basename(c.file)} through the real scripts without running a step`, async () => {
    await replaysWithoutRunning(c, c.written);
  });
  it('fails when a recorded auto step differs from what the script does', async () => {
    await failsOnOtherStep(c, c.step.recorded, c.step.actual);
  });
  it('fails when mekara says something else is pending, or elsewhere on the stack', async () => {
    await failsOnOtherPending(c, c.stacks, c.finished);
  });
  it(`keeps a recorded 0.0 a float: ${c.float.call} gets 0.0 as it did when recorded`, async () => {
    await keepsFloat(c, c.float.call, c.float.kwarg);
  });
  it("refuses a write_bundled cassette: mekara's own package files, naming the entry and field", async () => {
    await refusesWriteBundled({ ...c, project: c.writeBundled.project ?? c.project }, c.writeBundled.file);
  });
  it('answers a malformed entry with INVALID_INPUT naming the event and the field', async () => {
    await refusesMalformed(c);
  });
}
