// Rule 2 of docs/security.md across a process boundary: a Switchboard that an agent's turn starts (`switchboard serve`
// in agent.mcp.json, or in claude's own MCP settings) serves at most what the caller of agent__start / agent__resume
// could call directly. The hub hands the turn's roles, and the capability names the caller may call when its
// exposure filters any, to the processes of the turn in SWITCHBOARD_CALLER_LIMIT; `serve` over stdio narrows its
// principal to them. It only narrows: a name not listed (a tool that appeared after the turn started) is hidden, and
// a value that cannot be read stops `serve` instead of serving everything.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import type { Principal } from '../core/context.ts';
import type { Registry } from '../core/registry.ts';

export const CALLER_LIMIT_ENV = 'SWITCHBOARD_CALLER_LIMIT';

const CallerLimitSchema = z
  .object({
    /** The turn's roles: the most a `serve` started for it keeps of its own (`[stdio] roles`). */
    roles: z.array(z.string().min(1)),
    /** The capability names the caller may call; absent when its exposure filters nothing (its roles decide). */
    tools: z.array(z.string().min(1)).optional(),
  })
  .strict();
export type CallerLimit = z.output<typeof CallerLimitSchema>;

/** Longest value passed in the environment itself; a longer one goes in a file (Linux caps a variable at 128 KiB). */
const INLINE_MAX_BYTES = 16 * 1024;

const EXPECTED =
  'expected a JSON object such as {"roles":["agent"],"tools":["task.list"]}, or the absolute path of a file holding one. Switchboard sets it for the processes of an agent\'s turn (docs/security.md, "Reaching a tool through another")';

/**
 * `roles` capped by `cap`: `*` in either leaves the other, else the roles both have. A caller cannot gain a role by
 * starting an agent that has it, nor a `serve` started for it by having more stdio roles.
 *
 * @example
 * narrowRoles(['admin', 'agent'], ['agent']) // ['agent']
 * narrowRoles(['*'], ['agent']) // ['agent']
 */
export function narrowRoles(roles: readonly string[], cap: readonly string[]): string[] {
  if (cap.includes('*')) return [...roles];
  if (roles.includes('*')) return [...cap];
  return roles.filter((r) => cap.includes(r));
}

/**
 * What `principal` may call, as a limit for the processes it starts: its roles, and — when its exposure filters
 * anything — the names it may call now (`visible`, the direct call's own check). Names that appear later are not in it.
 */
export function callerLimit(registry: Registry, principal: Principal): CallerLimit {
  return {
    roles: [...principal.roles],
    ...(principal.sees ? { tools: registry.list(principal).map((e) => e.capability.name) } : {}),
  };
}

/** The limit as the variables a child gets, and what removes its file (when it needed one) once the turn is over. */
export interface PassedLimit {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** The limit in SWITCHBOARD_CALLER_LIMIT: the JSON itself, or when long, the path of an owner-only file holding it. */
export async function passCallerLimit(limit: CallerLimit): Promise<PassedLimit> {
  const json = JSON.stringify(limit);
  if (Buffer.byteLength(json) <= INLINE_MAX_BYTES)
    return { env: { [CALLER_LIMIT_ENV]: json }, dispose: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-caller-'));
  const file = join(dir, 'limit.json');
  await writeFile(file, json, { mode: 0o600, flag: 'wx' });
  return { env: { [CALLER_LIMIT_ENV]: file }, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The limit in `env`, or undefined when the variable is not set. Anything else than a limit throws an Error saying
 * what was wrong and what is expected: a `serve` given a limit it cannot read must not start.
 */
export function readCallerLimit(env: NodeJS.ProcessEnv): CallerLimit | undefined {
  const value = env[CALLER_LIMIT_ENV];
  if (value === undefined) return undefined;
  const shown = `${CALLER_LIMIT_ENV}=${value.length > 80 ? `${value.slice(0, 80)}…` : value}`;
  let text = value;
  if (!value.trimStart().startsWith('{')) {
    if (!isAbsolute(value)) throw new Error(`${shown}: ${EXPECTED}.`);
    try {
      text = readFileSync(value, 'utf8');
    } catch (err) {
      throw new Error(
        `${shown}: the file cannot be read (${(err as NodeJS.ErrnoException).code ?? err}); ${EXPECTED}.`,
      );
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${shown}: not JSON (${(err as Error).message}); ${EXPECTED}.`);
  }
  const parsed = CallerLimitSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.map(String).join('.') : '(root)';
  throw new Error(`${shown}: ${where}: ${issue?.message}; ${EXPECTED}.`);
}

/**
 * `principal` within `limit`: its roles capped by the limit's, and when the limit lists names, only those seen (an
 * exposure layer like `serve --only`). No limit: the principal as it is.
 */
export function limitToCaller(principal: Principal, limit: CallerLimit | undefined): Principal {
  if (!limit) return principal;
  const roles = narrowRoles(principal.roles, limit.roles);
  if (!limit.tools) return { ...principal, roles };
  const listed = new Set(limit.tools);
  const own = principal.sees;
  const sees = own ? (name: string) => listed.has(name) && own(name) : (name: string) => listed.has(name);
  return { ...principal, roles, sees };
}
