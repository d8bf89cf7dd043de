// The Lua scripts of the Redis store: each is one or more .lua files in this folder (a shared fragment, such as the
// task index functions, is one file that several scripts start with). They are read from disk when the first
// connection defines them, relative to this module: src/store/redis/ under vitest and tsx, dist/ in the bundle and
// the startup snapshot (scripts/build.mjs copies them there). Why files read at run time and not imports:
// docs/decisions.md, "Lua scripts as files".
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/** Runs one Redis operation, turning a failure into UNAVAILABLE ({@link RedisStore.io}). */
export type Io = <T>(fn: () => Promise<T>) => Promise<T>;

/** One script: the client command it becomes, its number of keys, and the .lua files it is made of, in order. */
export type ScriptDef<Name extends string = string> = readonly [name: Name, numberOfKeys: number, files: string[]];

const texts = new Map<string, string>();

function read(file: string): string {
  let text = texts.get(file);
  if (text === undefined) {
    text = readFileSync(new URL(file, import.meta.url), 'utf8');
    texts.set(file, text);
  }
  return text;
}

/**
 * A script's text: each file after a newline, the form the scripts had as template strings, so a script keeps its
 * SHA1 (and Redis's cached copy) across the move to files.
 */
export function scriptText(files: readonly string[]): string {
  return files.map((file) => `\n${read(file)}`).join('');
}

/** Define every script as a command on a connection (`client.sbTaskCreate(...)` runs EVALSHA, EVAL when missing). */
export function defineScripts(client: Redis, scripts: readonly ScriptDef[]): void {
  for (const [name, numberOfKeys, files] of scripts)
    client.defineCommand(name, { numberOfKeys, lua: scriptText(files) });
}

/** HGETALL reply (flat array, as a script returns it, or object) as an object. */
export function pairs(reply: string[] | Record<string, string>): Record<string, string> {
  if (!Array.isArray(reply)) return reply;
  const out: Record<string, string> = {};
  for (let i = 0; i < reply.length; i += 2) out[reply[i]] = reply[i + 1];
  return out;
}
