// Helpers for script tests: write script files into a scripts folder, and call the script tools of a test hub
// returning the answer text, state and error code.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Principal } from '../../../src/core/context.ts';
import type { TestHub } from '../../helpers/hub.ts';

/** Write files (path relative to `root` → content) creating folders as needed. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

/** Write scripts into a project's `.switchboard/scripts`. */
export function projectScripts(projectDir: string, files: Record<string, string>): void {
  writeFiles(join(projectDir, '.switchboard', 'scripts'), files);
}

export interface ToolAnswer {
  ok: boolean;
  text: string;
  state?: string;
  runId?: string;
  nextTool?: string;
  code?: string;
}

/** Call a script tool through the pipeline and flatten the outcome. */
export async function tool(
  hub: TestHub,
  name: string,
  input: Record<string, unknown> = {},
  principal?: Principal,
): Promise<ToolAnswer> {
  const out = await hub.call(name, input, principal);
  if (!out.ok) return { ok: false, text: out.error.message, code: out.error.code };
  const structured = (out.raw?.structuredContent ?? {}) as { state?: string; run_id?: string; next_tool?: string };
  const text = (out.raw?.content ?? []).map((c) => String((c as { text?: string }).text ?? '')).join('\n');
  return { ok: true, text, state: structured.state, runId: structured.run_id, nextTool: structured.next_tool };
}

/** An NL script body. */
export const nl = (title: string) => `# ${title}\n\nDo ${title}. Arguments: $ARGUMENTS\n`;
