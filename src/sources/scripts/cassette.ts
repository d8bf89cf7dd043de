// VCR cassettes: `SWITCHBOARD_VCR_CASSETTE=FILE` records every script tool call with its auto steps as YAML;
// replay runs the real executor against the recorded results (no command runs) and fails on any difference.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parse, stringify } from 'yaml';
import { SwitchboardError } from '../../core/errors.ts';
import type { EventSink, ScriptEvent } from './events.ts';
import { ReplayCursor, ReplayRunner, replayEvents } from './replay.ts';
import type { ScriptRoots } from './resolve.ts';
import { ScriptSession } from './session.ts';

export interface Cassette {
  initial_state: { working_dir: string };
  events: ScriptEvent[];
}

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

const EVENT_TYPES = new Set(['mcp_tool_input', 'auto_step', 'mcp_tool_output']);

/** Read and check a cassette file; a malformed one is INVALID_INPUT naming the file and the bad event. */
export function readCassette(file: string): Cassette {
  let data: unknown;
  try {
    data = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SwitchboardError('INVALID_INPUT', `Cannot read cassette ${file}: ${(err as Error).message}`);
  }
  const c = data as Partial<Cassette> | null;
  if (!c || typeof c !== 'object' || !Array.isArray(c.events) || typeof c.initial_state?.working_dir !== 'string')
    throw new SwitchboardError(
      'INVALID_INPUT',
      `${file} is not a cassette: expected initial_state.working_dir and a list of events.`,
    );
  for (const [i, e] of c.events.entries())
    if (!e || typeof e !== 'object' || !EVENT_TYPES.has((e as ScriptEvent).type))
      throw new SwitchboardError(
        'INVALID_INPUT',
        `${file}: event ${i + 1} has no known type (expected mcp_tool_input, auto_step or mcp_tool_output).`,
      );
  return c as Cassette;
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
  const cursor = new ReplayCursor(cassette.events, 'vcr');
  const session = new ScriptSession({
    roots: opts.roots,
    projectDir: opts.projectDir,
    runner: new ReplayRunner(cursor),
  });
  const calls = await replayEvents(session, cursor, new AbortController().signal);
  return { calls, events: cassette.events.length };
}
