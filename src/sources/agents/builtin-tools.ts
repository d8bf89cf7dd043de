// Switchboard's own capabilities as an agent's tools (`enable_builtins`): called through the pipeline with the
// agent's roles, so sub-agents share the task board, hooks and scripts with the main agent under the same policy.

import type { Config } from '../../config/schema.ts';
import { argv } from '../../core/argv.ts';
import { listedTools } from '../../core/catalog/exposure.ts';
import type { Principal } from '../../core/context.ts';
import type { Pipeline } from '../../core/pipeline.ts';
import { runProcess } from '../../core/process.ts';
import type { Registry } from '../../core/registry.ts';
import type { TraceContext } from '../../core/trace-context.ts';
import type { LocalTool } from './providers/provider.ts';

/** Domains an agent never gets as tools: starting sub-agents from sub-agents is not offered (no unbounded fan-out). */
const EXCLUDED = /^(agent|session)\./;

function resultText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? '' : JSON.stringify(value);
}

/**
 * The capabilities `principal` would be listed (`tools/list` under its profile and `[catalog]`: the catalog's own
 * tools only in `search`), as tools named like their MCP tool (`task__create`).
 *
 * @example
 * builtinTools(registry, config, pipeline, { id: 'agent:s1', roles: ['agent'], kind: 'internal' })
 */
export function builtinTools(
  registry: Registry,
  config: Config,
  pipeline: Pipeline,
  principal: Principal,
  trace?: TraceContext,
): LocalTool[] {
  return listedTools(registry, config, principal)
    .filter((e) => !EXCLUDED.test(e.capability.name))
    .map((e) => ({
      kind: 'builtin' as const,
      name: e.tool.name,
      description: e.tool.description,
      input_schema: e.tool.inputSchema,
      async run(args: unknown, signal: AbortSignal) {
        const outcome = await pipeline.call({
          principal,
          name: e.capability.name,
          input: args,
          transport: 'internal',
          signal,
          // The turn's trace: a tool the agent calls is a span of the turn that called it.
          ...(trace ? { trace } : {}),
        });
        if (!outcome.ok) return { content: outcome.error.message, is_error: true };
        if (outcome.raw)
          return {
            content: outcome.raw.content
              .map((b) => (b.type === 'text' ? String(b.text) : JSON.stringify(b)))
              .join('\n'),
            is_error: Boolean(outcome.raw.isError),
          };
        return { content: resultText(outcome.value), is_error: false };
      },
    }));
}

/**
 * The `shell` tool: `sh -c command` in the session's project directory, its own process group, a time limit.
 *
 * @example
 * shellTool('/repo', 30, env).run({ command: 'ls' }, signal)
 */
export function shellTool(cwd: string, timeoutSecs: number, env: Record<string, string>): LocalTool {
  return {
    kind: 'shell',
    name: 'shell',
    description: `Run a shell command (sh -c) in ${cwd}; stops after ${timeoutSecs} s. Returns exit code, stdout and stderr.`,
    input_schema: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The command line' } },
      required: ['command'],
    },
    async run(args, signal) {
      const command = (args as { command?: unknown })?.command;
      if (typeof command !== 'string' || !command.trim())
        return { content: 'The shell tool needs {command: string}, e.g. {"command": "ls"}.', is_error: true };
      // The model's command line is the script sh runs (the shell tool is granted on purpose), after `--`.
      const r = await runProcess('/bin/sh', argv().flag('-c').operands(command).build(), {
        signal,
        cwd,
        env,
        timeoutMs: timeoutSecs * 1000,
      });
      const note = r.timedOut ? `\n(stopped after ${timeoutSecs} s)` : r.truncated ? '\n(output cut)' : '';
      return {
        content: `exit code ${r.exitCode}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}${note}`,
        is_error: r.exitCode !== 0,
      };
    },
  };
}
