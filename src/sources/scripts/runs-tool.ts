// script.runs: the script runs of the project for people watching them (the dashboard, docs/dashboard.md). Without
// run_id, the runs newest first; with it, one run: its stack and the step it waits on (when this hub holds it), and
// the steps executed with their output, from its journal. A caller sees its own runs; an admin sees everyone's.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { allowed } from '../../core/registry.ts';
import { SCRIPT_RUN_STATUSES } from '../../store/contract.ts';
import type { AutoOutcome } from './auto-runner.ts';
import type { ScriptDeps } from './deps.ts';
import type { ScriptEvent } from './events.ts';

/** A journal entry as a step a person reads: what ran, whether it went well, what it printed. */
function stepOf(entry: ScriptEvent): Record<string, unknown> {
  switch (entry.type) {
    case 'mcp_tool_input':
      return { kind: 'call', tool: entry.tool, input: entry.input };
    case 'mcp_tool_output':
      return { kind: 'answer', tool: entry.tool, ok: !entry.is_error, output: entry.output };
    case 'auto_step': {
      const r = entry.result as AutoOutcome;
      const action = entry.inputs.action;
      return {
        kind: 'auto',
        action: Array.isArray(action)
          ? action.join(' ')
          : typeof action === 'string'
            ? action
            : entry.inputs.action_type,
        workingDir: entry.working_dir,
        ok: r.kind === 'shell' ? r.exit_code === 0 : r.kind === 'call',
        ...(r.kind === 'shell' ? { exitCode: r.exit_code } : {}),
        ...(r.kind === 'exception' ? { exception: r.exception } : {}),
        output: r.output,
      };
    }
    default:
      return { kind: 'unknown', entry };
  }
}

// A module constant (why: src/snapshot-tools.ts).
const RunsInput = z.strictObject({
  run_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional()
    .describe('One run, as script__start returned it.'),
  status: z.enum(SCRIPT_RUN_STATUSES).optional().describe('Only runs in this status.'),
  limit: z.number().int().min(1).max(500).default(50).describe('At most this many runs (1-500, default 50).'),
});

export function scriptRuns(deps: ScriptDeps) {
  return defineCapability({
    name: 'script.runs',
    title: 'Script runs',
    description:
      "List script runs, newest first (your own; an admin's call lists everyone's), or with run_id show one run: its stack and the step it waits on (while this hub holds it in memory) and the steps executed so far with their output. Read-only: to drive a run use script__status, script__continue_compiled_script and script__finish_nl_script.",
    input: RunsInput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ run_id, status, limit }, ctx) => {
      const { store } = ctx.services;
      const everyone = allowed(ctx.principal, ['admin']);
      if (!run_id) {
        const runs = await store.scriptRuns.list({
          ...(everyone ? {} : { principal: ctx.principal.id }),
          ...(status ? { status } : {}),
          limit,
        });
        return { runs: runs.map(({ clientKey: _key, ...r }) => r) };
      }
      const run = await store.scriptRuns.get(run_id);
      if (!run || (!everyone && run.principal !== ctx.principal.id))
        throw new SwitchboardError('NOT_FOUND', `No script run '${run_id}' of yours; list them with script__runs.`);
      const journal = (await store.scriptRuns.journal(run_id)) as unknown as ScriptEvent[];
      const { clientKey: _key, ...record } = run;
      return { run: record, live: deps.runs.view(run_id) ?? null, steps: journal.map(stepOf) };
    },
  });
}
