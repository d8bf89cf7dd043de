// The events of a script run, as journalled in the Store and recorded in VCR cassettes: tool inputs, each auto
// step with its inputs and result, tool outputs. Replaying them rebuilds the executor without running anything.
import type { AutoInputs, AutoOutcome } from './auto-runner.ts';

export type ScriptEvent =
  | { type: 'mcp_tool_input'; tool: string; input: Record<string, unknown> }
  | { type: 'auto_step'; working_dir: string; inputs: AutoInputs; result: AutoOutcome }
  | { type: 'mcp_tool_output'; tool: string; output: string; is_error?: boolean };

/** Receives events as they happen (journal, cassette); awaited, so a recorded step is durable before the next. */
export type EventSink = (event: ScriptEvent) => void | Promise<void>;

/** JSON with sorted keys: two equal values give equal text whatever order their keys were written in. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** An auto step as mismatch messages name it. */
export function describeAuto(inputs: AutoInputs): string {
  return `auto_step ${inputs.action_type} ${clip(JSON.stringify(inputs.action))} kwargs=${clip(stableJson(inputs.kwargs))} context=${clip(stableJson(inputs.context))}`;
}

/** One line naming an event, for mismatch messages. */
export function describeEvent(event: ScriptEvent | undefined): string {
  if (!event) return 'the end of the recording';
  switch (event.type) {
    case 'mcp_tool_input':
      return `mcp_tool_input ${event.tool} ${clip(stableJson(event.input))}`;
    case 'auto_step':
      return describeAuto(event.inputs);
    case 'mcp_tool_output':
      return `mcp_tool_output ${event.tool}${event.is_error ? ' (error)' : ''}:\n${clip(event.output, 2000)}`;
  }
}
