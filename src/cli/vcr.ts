// `switchboard vcr replay FILE`: run a recorded script cassette through the real executor with the recorded
// auto-step results (no command runs) and fail with the first difference.
import { resolve } from 'node:path';
import { readCassette, replayCassette } from '../sources/scripts/cassette.ts';
import { scriptRoots } from '../sources/scripts/resolve.ts';
import { CliError } from './output.ts';

export async function vcrReplay(file: string, opts: { cwd: string }): Promise<void> {
  const cassette = readCassette(resolve(file));
  try {
    const result = await replayCassette(cassette, { roots: scriptRoots(opts.cwd), projectDir: opts.cwd });
    process.stdout.write(
      `Replayed ${result.calls} tool calls (${result.events} events) from ${file}: no differences.\n`,
    );
  } catch (err) {
    throw new CliError((err as Error).message, 1);
  }
}
