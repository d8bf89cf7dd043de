// Natural-language scripts: markdown read from disk, with the first `$ARGUMENTS` replaced by the arguments.
// Also gives a one-line description for listings and prompts (front matter `description:`, else the first line).
import { readFileSync } from 'node:fs';

/** The NL text with only the first `$ARGUMENTS` replaced (later ones are left for the author's own use). */
export function substituteArguments(text: string, args: string): string {
  const at = text.indexOf('$ARGUMENTS');
  return at < 0 ? text : text.slice(0, at) + args + text.slice(at + '$ARGUMENTS'.length);
}

const FRONT_MATTER = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/;

/** Read an NL script without its front matter (as Claude Code shows a command) and substitute its arguments. */
export function loadNl(file: string, args: string): string {
  return substituteArguments(
    readFileSync(file, 'utf8')
      .replace(FRONT_MATTER, '')
      .replace(/^\s*\n/, ''),
    args,
  );
}

/** A short description: `description:` from YAML front matter, else the first non-empty line without `#`. */
export function describeNl(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return '';
  }
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (front) {
    const d = /^description:\s*(.+)$/m.exec(front[1]);
    if (d) return d[1].trim().replace(/^["']|["']$/g, '');
    text = text.slice(front[0].length);
  }
  const line = text.split('\n').find((l) => l.trim().length > 0) ?? '';
  return line
    .replace(/^#+\s*/, '')
    .trim()
    .slice(0, 200);
}
