// Test helper: replay a script cassette against a project's scripts with the real executor; no command runs.
// Throws the replay mismatch (expected and actual event or output, "re-record the cassette") on any difference.
import { type ReplayResult, readCassette, replayCassette } from '../../src/sources/scripts/cassette.ts';
import { scriptRoots } from '../../src/sources/scripts/resolve.ts';

export async function replayCassetteFile(
  file: string,
  projectDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ReplayResult> {
  return replayCassette(readCassette(file), { roots: scriptRoots(projectDir, env), projectDir });
}
