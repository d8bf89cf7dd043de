// The one way an argument list for a child process is built (docs/security.md, "Nobody but the operator runs
// commands"). Three kinds of words, each said at the call site:
// - `flag`: a word written in our source; the type takes only a string literal, so a variable cannot slip in;
// - `option`: `--name=value` as one word, so whatever the value holds (`--settings=…`, `-r`) the program reads it
//   as this option's value, never as an option of its own;
// - `operands`: after `--`, which ends the program's options;
// - `operator`: words the operator wrote (a manifest's command, a configured server's args), which are theirs to
//   choose and are passed as written.
// Caller text (prompts, model names, session names, system prompts, script arguments, hook inputs) may only be a
// value or an operand, or go through standard input; `runCommand` and `startChild` (core/process.ts) take only an
// `Argv` built here, and test/core/process-starts.test.ts fails on a process started any other way.

declare const built: unique symbol;

/** An argument list made by {@link argv}. */
export type Argv = readonly string[] & { readonly [built]: true };

/** `T` when it is a string literal type, else `never`: a `string` variable does not type-check as a flag. */
type Literal<T extends string> = string extends T ? never : T;

export class ArgvBuilder {
  private readonly words: string[] = [];
  private ended = false;

  /** A fixed word from our source, e.g. `-p` or `--verbose`. */
  flag<const T extends string>(word: Literal<T>): this {
    this.beforeOperands('flag', word);
    this.words.push(word);
    return this;
  }

  /** `--name=value`, one word: the value is read as this option's value whatever it starts with. */
  option<const T extends `--${string}`>(name: Literal<T>, value: string): this {
    this.beforeOperands('option', name);
    this.words.push(`${name}=${value}`);
    return this;
  }

  /** The same option once per value (`--name=a --name=b`), for programs whose option takes a list. */
  options<const T extends `--${string}`>(name: Literal<T>, values: readonly string[]): this {
    for (const v of values) this.option(name, v);
    return this;
  }

  /** A word that cannot be an option by its form (a URL, an absolute path): refused when it begins with `-`. */
  nonOption(value: string): this {
    this.beforeOperands('word', value);
    if (value.startsWith('-'))
      throw new Error(`argv: '${value.slice(0, 80)}' begins with '-' where a plain word belongs`);
    this.words.push(value);
    return this;
  }

  /** Words the operator wrote in a manifest or a configuration, passed as written (`where` says which, for errors). */
  operator(words: readonly string[]): this {
    this.beforeOperands('operator words', words.join(' '));
    this.words.push(...words);
    return this;
  }

  /** Operands after `--`: the program takes them as operands even when one begins with `-`. */
  operands(...values: string[]): this {
    if (!this.ended) this.words.push('--');
    this.ended = true;
    this.words.push(...values);
    return this;
  }

  build(): Argv {
    return [...this.words] as unknown as Argv;
  }

  private beforeOperands(what: string, word: string): void {
    // A bug in our code, not the caller's: after `--` every word is an operand, so an option there would be text.
    if (this.ended) throw new Error(`argv: ${what} '${word}' after the operands`);
  }
}

/**
 * A new argument list.
 *
 * @example
 * argv().flag('-p').option('--model', model).build()        // ['-p', '--model=<model>']
 * argv().flag('-c').operands(script).build()                 // sh: ['-c', '--', script]
 */
export function argv(): ArgvBuilder {
  return new ArgvBuilder();
}

/** An empty argument list (a program started with none). */
export const NO_ARGS: Argv = argv().build();
