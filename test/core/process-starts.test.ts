// Every process Switchboard starts goes through core/process.ts with an argument list from core/argv.ts (issue 28,
// §1). This reads every module of src/ and fails when one starts a process another way (imports child_process,
// execa or cross-spawn, or calls the handler authors' runCommand), or when a new start appears that is not on the
// list below — a new one is added here after checking what its words are: ours, the operator's, or a caller's value.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { argv } from '../../src/core/argv.ts';
import { runProcess } from '../../src/core/process.ts';

const SRC = join(import.meta.dirname, '../../src');

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    // Declaration files (.d.ts) describe modules; they run nothing.
    e.isDirectory()
      ? modules(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

const sources = modules(SRC).map((file) => ({ file: relative(SRC, file), text: readFileSync(file, 'utf8') }));

/**
 * Each place that starts a process, with whose words it passes. `runProcess` runs one to its end, `startChild` starts
 * a long-lived one.
 */
const STARTS: Record<string, { runProcess?: number; startChild?: number; startIndependent?: number; words: string }> = {
  'sources/agents/providers/claude-cli.ts': {
    runProcess: 1,
    words: 'ours; caller text only as --option=value, the prompt on stdin',
  },
  'sources/agents/builtin-tools.ts': { runProcess: 1, words: "sh -c -- the model's command (a granted shell)" },
  'sources/scripts/auto-runner.ts': { runProcess: 1, words: "the script author's command" },
  'sources/scripts/python.ts': { runProcess: 1, startChild: 1, words: 'ours (the interpreter probe and the runner)' },
  'sources/plugins/run.ts': { runProcess: 1, words: "sh -c -- the manifest's command; inputs on stdin and in env" },
  'sources/plugins/targets.ts': { runProcess: 1, words: "sh -c -- the manifest's dir_test" },
  'mcp-client/stdio-client-transport.ts': { startChild: 1, words: "the configured server's command and args" },
  'core/load-problems.ts': { runProcess: 1, words: 'ours: node --check on a module that failed to load' },
  'core/sandbox.ts': { runProcess: 1, words: 'ours: the bubblewrap probe (bwrap … true)' },
  'cli/mcp-login.ts': { startIndependent: 1, words: 'the browser opener on an http(s) URL' },
  'cli/snapshot-cache.ts': {
    runProcess: 1,
    startIndependent: 1,
    words: 'ours: node --build-snapshot of the install, and the background `snapshot build`',
  },
};

const count = (text: string, re: RegExp) => (text.match(re) ?? []).length;

describe('process starts in src/', () => {
  it('only core/process.ts (and the reaper, which must outlive the hub) loads a process-starting module', () => {
    const loaders =
      /(?:^|\n)\s*import\s+(?!type\b)[^;]*?from\s+'(?:node:)?child_process'|(?:^|\n)\s*import\s+[^;]*?from\s+'(?:execa|cross-spawn)'|import\(\s*'(?:node:child_process|child_process|execa|cross-spawn)'\s*\)|require\(\s*'(?:node:)?child_process'\s*\)/;
    const found = sources.filter((s) => loaders.test(s.text)).map((s) => s.file);
    expect(found).toEqual(['core/process.ts', 'core/reaper.ts']);
  });

  it('Switchboard never calls runCommand (the handler authors’ form, whose words are all theirs)', () => {
    const calls = sources.filter((s) => s.file !== 'core/process.ts' && /\brunCommand\s*\(/.test(s.text));
    expect(calls.map((s) => s.file)).toEqual([]);
  });

  it('every call of runProcess and startChild is one of the known places', () => {
    const found: typeof STARTS = {};
    for (const s of sources) {
      if (s.file === 'core/process.ts' || s.file === 'core/reaper.ts') continue;
      const run = count(s.text, /\brunProcess\s*\(/g);
      const start = count(s.text, /\bstartChild\s*\(/g);
      const independent = count(s.text, /\bstartIndependent\s*\(/g);
      if (run || start || independent)
        found[s.file] = {
          ...(run ? { runProcess: run } : {}),
          ...(start ? { startChild: start } : {}),
          ...(independent ? { startIndependent: independent } : {}),
          words: STARTS[s.file]?.words ?? 'NEW: check whose words it passes, then list it here',
        };
    }
    expect(found).toEqual(STARTS);
  });
});

describe('argv', () => {
  it('puts a value in the same word as its option and operands after --, whatever they begin with', () => {
    const hostile = '--settings={"hooks":{}}';
    const args = argv().flag('-p').option('--model', hostile).operands('-r', hostile).build();
    expect(args).toEqual(['-p', `--model=${hostile}`, '--', '-r', hostile]);
  });

  it('refuses a word that must not be an option when it begins with -, and any option after the operands', () => {
    expect(() => argv().nonOption('-x')).toThrow(/begins with '-'/);
    expect(argv().nonOption('https://example.test/a?b=-c').build()).toEqual(['https://example.test/a?b=-c']);
    expect(() => argv().operands('a').flag('-v')).toThrow(/after the operands/);
  });

  it('sh reads an operand after -- as its script even when it begins with -', async () => {
    const r = await runProcess('sh', argv().flag('-c').operands('-x 2>/dev/null; echo ran').build(), {
      signal: new AbortController().signal,
    });
    // `sh -c -x …` would have taken -x as sh's own option and found no script.
    expect(r.stdout).toBe('ran\n');
  });
});
