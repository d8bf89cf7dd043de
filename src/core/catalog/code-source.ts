// Code mode's source: the caller's TypeScript or JavaScript, types stripped by esbuild, wrapped as the body of an
// async function (so `return` and `await` work at the top), with a map from the engine's lines back to the caller's.
import { decode } from '@jridgewell/sourcemap-codec';
import { SwitchboardError } from '../errors.ts';

export interface ProgramSource {
  /** JavaScript the engine evaluates: a promise of the program's value as JSON text. */
  code: string;
  /** The caller's line (1-based) for a line of `code`, when it maps to one. */
  lineOf: (line: number) => number | undefined;
}

// One line of its own before the caller's code: line N of the caller's code is line N + 1 of the input to esbuild.
const HEAD = '(async () => {\n';
const TAIL = '\n})().then((v) => JSON.stringify(v === undefined ? null : v))';

/** Strip types and wrap; a syntax error is the caller's, with its line. */
export async function toJavaScript(code: string): Promise<ProgramSource> {
  // esbuild is loaded on the first program only: it is a native binary a hub without code mode never starts.
  const { transform } = await import('esbuild');
  let out: { code: string; map: string };
  try {
    out = await transform(HEAD + code + TAIL, {
      loader: 'ts',
      // QuickJS runs ES2023: nothing is lowered, so the code that runs is the code written.
      target: 'es2022',
      sourcemap: 'external',
      sourcefile: 'program.ts',
    });
  } catch (err) {
    const first = (err as { errors?: Array<{ text: string; location?: { line: number; column: number } | null }> })
      .errors?.[0];
    if (!first) throw err;
    const line = first.location ? Math.max(1, first.location.line - 1) : undefined;
    const where = line === undefined ? '' : ` (line ${line} of the code)`;
    throw new SwitchboardError(
      'INVALID_INPUT',
      `The program does not compile${where}: ${first.text}. Write the body of an async function: statements, \`await tools.NAME(args)\`, \`return\` a value; no import or export.`,
      line === undefined ? undefined : { line },
    );
  }
  const mappings = decode((JSON.parse(out.map) as { mappings: string }).mappings);
  const lineOf = (line: number): number | undefined => {
    const segment = mappings[line - 1]?.find((s) => s.length >= 4);
    if (!segment) return undefined;
    // The map's source lines count from 0 and its first is the wrapper's, so its index is the caller's line number.
    const original = segment[2] as number;
    return original >= 1 ? original : undefined;
  };
  return { code: out.code, lineOf };
}
