// The files an agent session edited, for `${HAN_FILES}` on agent hook events. Han records every Write, Edit and
// NotebookEdit tool use of a session from its transcript (han-indexer: `record_file_change_from_tool`) and hands a
// Stop hook those files only; Switchboard reads the same tool uses from the transcript the hook event names.
import { createReadStream, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import picomatch from 'picomatch';
import type { HookEvent } from './dispatch.ts';

/** Tools that change a file, and the input field naming it. MultiEdit is Claude Code's (older) many-edit tool. */
const FILE_TOOLS: Record<string, string> = {
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
};

/** Transcripts larger than this are read up to it (a session's tool uses are lines, not bytes). */
const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

const real = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** The file a tool use edits, absolute (relative paths are against `cwd`), or undefined. */
export function editedPath(tool: unknown, input: unknown, cwd: string): string | undefined {
  const field = typeof tool === 'string' ? FILE_TOOLS[tool] : undefined;
  const path = field && input && typeof input === 'object' ? (input as Record<string, unknown>)[field] : undefined;
  return typeof path === 'string' && path ? real(resolve(cwd, path)) : undefined;
}

/** Every file the transcript's tool uses edited, in order of first edit; undefined when it cannot be read. */
export async function transcriptEdits(transcript: string, cwd: string): Promise<string[] | undefined> {
  const files = new Set<string>();
  try {
    const lines = createInterface({
      input: createReadStream(transcript, { encoding: 'utf8', end: MAX_TRANSCRIPT_BYTES }),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const line of lines) {
      // Cheap test first: most lines are text, tool results or metadata.
      if (!line.includes('"tool_use"')) continue;
      let entry: { message?: { content?: unknown } };
      try {
        entry = JSON.parse(line);
      } catch {
        continue; // A line being written while we read: the edits before it still count.
      }
      const content = entry.message?.content;
      if (!Array.isArray(content)) continue;
      for (const block of content) {
        if (block?.type !== 'tool_use') continue;
        const file = editedPath(block.name, block.input, cwd);
        if (file) files.add(file);
      }
    }
  } catch {
    return undefined;
  }
  return [...files];
}

/**
 * The files `${HAN_FILES}` narrows to for an agent event: a tool event's own file; for other events, every file the
 * session (or, on SubagentStop, the subagent) edited according to its transcript. Undefined when unknown — then
 * `${HAN_FILES}` is `.` (check everything), as in Han.
 *
 * @example
 * await sessionEditedFiles({ hook_event_name: 'Stop', transcript_path: '/t.jsonl', cwd: '/repo' }, '/repo')
 * // ['/repo/src/a.ts']
 */
export async function sessionEditedFiles(event: HookEvent, projectDir: string): Promise<string[] | undefined> {
  const cwd = event.cwd ?? projectDir;
  if (event.hook_event_name === 'PreToolUse' || event.hook_event_name === 'PostToolUse') {
    const file = editedPath(event.tool_name, event.tool_input, cwd);
    return file ? [file] : undefined;
  }
  const agentTranscript = (event as { agent_transcript_path?: unknown }).agent_transcript_path;
  const transcript =
    event.hook_event_name === 'SubagentStop' && typeof agentTranscript === 'string'
      ? agentTranscript
      : event.transcript_path;
  return transcript ? transcriptEdits(transcript, cwd) : undefined;
}

/**
 * `${HAN_FILES}` for one directory: the session's files inside it that still exist and match `if_changed`,
 * relative to it. `undefined` means "use the usual value"; `[]` means the session changed nothing here.
 */
export function sessionFilesIn(
  session: readonly string[] | undefined,
  dir: string,
  patterns: readonly string[],
  exists: (file: string) => boolean,
): string[] | undefined {
  if (!session || session.length === 0) return undefined;
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const inside = session.filter((f) => f.startsWith(prefix) && exists(f)).map((f) => f.slice(prefix.length));
  return patterns.length ? inside.filter((f) => picomatch.isMatch(f, patterns as string[], { dot: true })) : inside;
}

/** Whether a hook command reads the file list (`$HAN_FILES`, `${SWITCHBOARD_FILES}`…). */
export function usesFileList(command: string): boolean {
  return /\$\{?(HAN_FILES|SWITCHBOARD_FILES)\b/.test(command);
}
