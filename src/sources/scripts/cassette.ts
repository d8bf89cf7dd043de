// VCR cassettes: `SWITCHBOARD_VCR_CASSETTE=FILE` records every script tool call with its auto steps as YAML
// (`MEKARA_VCR_CASSETTE=FILE` the same in mekara's format); replay runs the real executor against the recorded
// results (no command runs) and fails on any difference. mekara's cassettes replay too (cassette-read.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import { mekaraEvent, RECORDED_BY_SWITCHBOARD, withYamlFloats } from './cassette-mekara.ts';
import type { Cassette, CassetteFormat } from './cassette-read.ts';
import type { EventSink } from './events.ts';
import { ReplayCursor, ReplayRunner, replayEvents } from './replay.ts';
import type { ScriptRoots } from './resolve.ts';
import { ScriptSession } from './session.ts';

export { type Cassette, readCassette } from './cassette-read.ts';

/**
 * Record into `file`: the whole cassette is rewritten after each tool output, so a killed hub leaves every
 * finished call on disk. `mekara`: in mekara's format (cassette-mekara.ts), for MEKARA_VCR_CASSETTE.
 */
export function cassetteRecorder(file: string, workingDir: string, format: CassetteFormat = 'switchboard'): EventSink {
  const mekara = format === 'mekara';
  const initial_state = mekara
    ? { working_dir: workingDir, recorded_by: RECORDED_BY_SWITCHBOARD }
    : { working_dir: workingDir };
  const events: unknown[] = [];
  mkdirSync(dirname(file), { recursive: true });
  const save = () => writeFileSync(file, stringify({ initial_state, events }, { lineWidth: 0 }));
  save();
  return (event) => {
    events.push(mekara ? withYamlFloats(mekaraEvent(event)) : event);
    if (event.type === 'mcp_tool_output') save();
  };
}

export interface ReplayResult {
  calls: number;
  events: number;
}

/**
 * Replay a cassette against the scripts of `projectDir` (resolution uses the project, as when recording; the
 * recorded working_dir may no longer exist, since nothing runs). Throws a ReplayMismatch saying what was
 * expected and what happened, ending in "re-record the cassette".
 *
 * @example
 * await replayCassette(readCassette('test/fixtures/cassettes/nested.yaml'), { roots, projectDir });
 */
export async function replayCassette(
  cassette: Cassette,
  opts: { roots: ScriptRoots; projectDir: string },
): Promise<ReplayResult> {
  // A mekara-format cassette Switchboard recorded holds Switchboard's answers (compared exactly) but no error flags.
  const ours = cassette.format !== 'mekara' || cassette.recordedBy === RECORDED_BY_SWITCHBOARD;
  const cursor = new ReplayCursor(cassette.events, ours ? 'vcr' : 'mekara', {
    errorFlags: cassette.format !== 'mekara',
  });
  const session = new ScriptSession({
    roots: opts.roots,
    projectDir: opts.projectDir,
    runner: new ReplayRunner(cursor),
  });
  try {
    const calls = await replayEvents(session, cursor, new AbortController().signal);
    return { calls, events: cassette.events.length };
  } finally {
    await session.executor.dispose();
  }
}
