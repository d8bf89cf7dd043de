// Cassettes in mekara's format, recorded when MEKARA_VCR_CASSETTE is set: mekara's tool names (`start`, …), its
// input fields (`start` always with `arguments` and `working_dir`, null when absent), its auto-step results (`type`
// and `success`; `error` for calls, `step_description` for exceptions), and no key its reader does not know (its
// events refuse unknown keys). Floats keep their fraction (`6.0`), as Python writes them.
import { Scalar } from 'yaml';
import type { AutoInputs, AutoOutcome } from './auto-runner.ts';
import type { ScriptEvent } from './events.ts';

/**
 * `initial_state.recorded_by` of a mekara-format cassette Switchboard wrote: its tool outputs are Switchboard's
 * answers, so a replay compares them word for word (mekara's own cassettes are compared by what they say is pending).
 */
export const RECORDED_BY_SWITCHBOARD = 'switchboard';

type Raw = Record<string, unknown>;

/** A Python float as the runner sends it (`{"$float": 6}`, `{"$float": "nan"}`) as a YAML float, else undefined. */
function pythonFloat(value: unknown): Scalar | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== '$float') return undefined;
  const v = (value as { $float: unknown }).$float;
  const n =
    typeof v === 'number'
      ? v
      : v === 'nan'
        ? Number.NaN
        : v === 'inf'
          ? Infinity
          : v === '-inf'
            ? -Infinity
            : undefined;
  if (n === undefined) return undefined;
  const scalar = new Scalar(n);
  scalar.minFractionDigits = 1;
  return scalar;
}

/** `value` with every Python float marker made a YAML float. */
export function withYamlFloats(value: unknown): unknown {
  const float = pythonFloat(value);
  if (float) return float;
  if (Array.isArray(value)) return value.map(withYamlFloats);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withYamlFloats(v)]));
  return value;
}

/** What mekara shows as a step in an exception: the command, or the function with its arguments. */
function stepDescription(inputs: AutoInputs): string {
  if (inputs.action_type === 'shell') return inputs.action;
  if (inputs.action_type === 'argv') return inputs.action.join(' ');
  const args = Object.entries(inputs.kwargs).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `${inputs.action}(${args.join(', ')})`;
}

function mekaraResult(result: AutoOutcome, inputs: AutoInputs): Raw {
  switch (result.kind) {
    case 'shell':
      return { type: 'shell', success: result.exit_code === 0, exit_code: result.exit_code, output: result.output };
    case 'call':
      return { type: 'call', success: true, value: result.value, error: null, output: result.output };
    case 'exception':
      return {
        type: 'exception',
        success: false,
        exception: result.exception,
        step_description: stepDescription(inputs),
        output: result.output,
      };
  }
}

/** The input of a run tool as mekara records it: only the fields its reader takes. */
function mekaraInput(tool: string, input: Raw): Raw {
  if (tool === 'start')
    return { name: input.name, arguments: input.arguments ?? '', working_dir: input.working_dir ?? null };
  if (tool === 'continue_compiled_script') return { outputs: input.outputs ?? {} };
  return {};
}

/**
 * One event as mekara writes it. A command given as an argument array (`argv`, which a JS script can yield and
 * mekara's Python scripts cannot) keeps its array: Switchboard replays it, mekara has no such step.
 */
export function mekaraEvent(event: ScriptEvent): Raw {
  switch (event.type) {
    case 'mcp_tool_input': {
      const tool = event.tool.replace(/^script__/, '');
      return { type: event.type, tool, input: mekaraInput(tool, event.input) };
    }
    case 'mcp_tool_output':
      return { type: event.type, tool: event.tool.replace(/^script__/, ''), output: event.output };
    case 'auto_step': {
      const { action_type, action, context, kwargs } = event.inputs;
      return {
        type: event.type,
        working_dir: event.working_dir,
        // mekara leaves kwargs out of a command step (None).
        inputs: { action_type, action, context, ...(action_type === 'call' ? { kwargs } : {}) },
        result: mekaraResult(event.result, event.inputs),
      };
    }
  }
}
