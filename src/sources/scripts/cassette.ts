// VCR cassettes: `SWITCHBOARD_VCR_CASSETTE=FILE` records every script tool call with its auto steps as YAML;
// replay runs the real executor against the recorded results (no command runs) and fails on any difference.
// mekara's cassettes replay too (read and converted by cassette-read.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';
import type { Cassette } from './cassette-read.ts';
import type { EventSink } from './events.ts';
import { ReplayCursor, ReplayRunner, replayEvents } from './replay.ts';
import type { ScriptRoots } from './resolve.ts';
import { ScriptSession } from './session.ts';

export { type Cassette, readCassette } from './cassette-read.ts';

/**
 * Record into `file`: the whole cassette is rewritten after each tool output, so a killed hub leaves every
 * finished call on disk.
 */
export function cassetteRecorder(file: string, workingDir: string): EventSink {
  const cassette: Cassette = { initial_state: { working_dir: workingDir }, events: [] };
  mkdirSync(dirname(file), { recursive: true });
  const save = () => writeFileSync(file, stringify(cassette, { lineWidth: 0 }));
  save();
  return (event) => {
    cassette.events.push(event);
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
  const cursor = new ReplayCursor(cassette.events, cassette.format === 'mekara' ? 'mekara' : 'vcr');
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
