// What agent__start and agent__resume bring, checked before a turn is admitted: the JSON Schemas a start gives
// (output_schema, callback tools), and the tool results a resume answers its pending calls with.
import type { PermissionMode } from '../../config/schema.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { inputsBlock } from './agent-orchestrator.ts';
import type { AgentDefinition, ProviderName } from './definitions.ts';
import type { CallbackTool, SessionMeta, ToolResultBlock } from './session-types.ts';

export interface StartInput {
  session_name: string;
  agent_name?: string;
  /** Optional when the agent has a parameters_schema (the parameters are the prompt then). */
  prompt?: string;
  /** Checked against the agent's parameters_schema; they fill its first prompt and its `${params.X}`. */
  parameters?: Record<string, unknown>;
  project_dir?: string;
  /** claude-cli: a mode at or below what the agent is granted. */
  permission_mode?: PermissionMode;
  async?: boolean;
  provider?: ProviderName;
  model?: string;
  max_tokens?: number;
  system_prompt?: string;
  output_schema?: Record<string, unknown>;
  structured_output_retries?: number;
  tools?: CallbackTool[];
  enable_builtins?: boolean;
  builtin_config?: { enable_shell?: boolean; shell_timeout_secs?: number };
  transient_turn_context?: string;
}

export interface ResumeInput {
  session_name: string;
  prompt?: string;
  tool_results?: { tool_use_id: string; content: string; is_error?: boolean }[];
  async?: boolean;
  /** From this turn on, the session runs on this provider (among the API providers: they share the history). */
  provider?: ProviderName;
  /** From this turn on, the session's model. */
  model?: string;
  /** From this turn on, the session's max tokens per model call. */
  max_tokens?: number;
  /** Meerkat sends the session's callback tools again: accepted when they are the same ([] or the start's list). */
  tools?: CallbackTool[];
  /** From this turn on; undefined keeps what the session has. */
  enable_builtins?: boolean;
  builtin_config?: { enable_shell?: boolean; shell_timeout_secs?: number };
  output_schema?: Record<string, unknown>;
  structured_output_retries?: number;
  transient_turn_context?: string;
}

/**
 * Meerkat's transient_turn_context for a turn on `provider`: only the API providers can keep it out of the
 * history (claude-cli writes every message into its own session).
 */
export function turnContext(given: string | undefined, provider: ProviderName, toolLoop: boolean): string | undefined {
  if (given && !toolLoop)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `transient_turn_context: ${provider} keeps every message in its own session, so text cannot be kept out of the history there; put it in the prompt, or use an API provider (anthropic, openai or gemini).`,
    );
  return given;
}

/**
 * The first prompt of a start, and the parameters the session keeps. An agent with a parameters_schema takes
 * `parameters`, checked against it (draft-07, as agent-orchestrator checks them), and gets them as an `<inputs>`
 * block, followed by the prompt when one is given; any other start needs a prompt and takes no parameters.
 * INVALID_INPUT names the parameter and what the schema wants.
 *
 * @example
 * await firstPrompt(agent, { parameters: { topic: 'AI', format: 'summary' } }) // { prompt: '<inputs>\n…', parameters }
 */
export async function firstPrompt(
  agent: AgentDefinition | undefined,
  input: Pick<StartInput, 'prompt' | 'parameters'>,
): Promise<{ prompt: string; parameters?: Record<string, unknown> }> {
  const schema = agent?.parameters_schema;
  if (!schema) {
    if (input.parameters)
      throw new SwitchboardError(
        'INVALID_INPUT',
        agent
          ? `parameters: agent '${agent.name}' declares no parameters_schema in its agent.json, so it takes only a prompt.`
          : 'parameters: only an agent with a parameters_schema takes parameters; give agent_name, or only a prompt.',
      );
    if (!input.prompt)
      throw new SwitchboardError(
        'INVALID_INPUT',
        `prompt: required${agent ? ` (agent '${agent.name}' has no parameters_schema to take parameters instead)` : ''}.`,
      );
    return { prompt: input.prompt };
  }
  const parameters = input.parameters ?? {};
  const { jsonValidator } = await import('../../core/ajv.ts');
  const where = `agent '${agent.name}' (${agent.dir}/agent.json)`;
  const v = jsonValidator(schema);
  if (!v.ok)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `The parameters_schema of ${where} is not a valid JSON Schema: ${v.message}`,
    );
  if (!v.validate(parameters)) {
    const problems = (v.validate.errors ?? []).map((e) => {
      const params = e.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown };
      if (e.keyword === 'required') return `parameters.${params.missingProperty}: required`;
      if (e.keyword === 'additionalProperties')
        return `parameters.${params.additionalProperty}: not a parameter of this agent (it takes: ${Object.keys((schema.properties as object) ?? {}).join(', ')})`;
      const at = `parameters${e.instancePath.replaceAll('/', '.')}`;
      return `${at}: ${e.message ?? 'is invalid'}${e.keyword === 'enum' ? ` ${JSON.stringify(params.allowedValues)}` : ''}`;
    });
    throw new SwitchboardError('INVALID_INPUT', `${problems.join('; ')} — as the parameters_schema of ${where} says.`);
  }
  const block = inputsBlock(parameters);
  return {
    prompt: input.prompt
      ? `${block}

${input.prompt}`
      : block,
    parameters,
  };
}

type GivenToolResult = NonNullable<ResumeInput['tool_results']>[number];

/** The keys of Meerkat's output_schema wrapper (`OutputSchema` in meerkat-core `types.rs`). */
const WRAPPER_KEYS = ['schema', 'name', 'strict', 'compat', 'format'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An output_schema as given: a JSON Schema, or Meerkat's wrapper `{schema, name?, strict?, compat?, format?}`
 * around one. Meerkat's rule tells them apart: a `schema` key with only wrapper keys beside it, or with
 * `format: "meerkat_v1"`, is a wrapper; anything else is the schema itself (a schema may have a property named
 * `schema`). `strict` and `compat` tune how Meerkat lowers a schema for a provider's native structured output;
 * Switchboard validates every answer against the whole schema itself, so they change nothing here.
 */
export function unwrapOutputSchema(given: Record<string, unknown>): { schema: Record<string, unknown>; name?: string } {
  const keys = Object.keys(given);
  const wrapped = 'schema' in given && (given.format === 'meerkat_v1' || keys.every((k) => WRAPPER_KEYS.includes(k)));
  if (!wrapped) return { schema: given };
  const bad = (key: string, expected: string) =>
    new SwitchboardError(
      'INVALID_INPUT',
      `output_schema.${key}: expected ${expected}, got ${JSON.stringify(given[key])} (the wrapper form is {schema, name?, strict?, compat?, format?}).`,
    );
  const unknown = keys.filter((k) => !WRAPPER_KEYS.includes(k));
  if (unknown.length)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `output_schema: unknown wrapper key ${unknown.map((k) => `'${k}'`).join(', ')} (the wrapper form is {schema, name?, strict?, compat?, format?}; or give the JSON Schema itself).`,
    );
  if (!isObject(given.schema)) throw bad('schema', 'a JSON Schema object');
  if (given.name !== undefined && typeof given.name !== 'string') throw bad('name', 'a string');
  if (given.strict !== undefined && typeof given.strict !== 'boolean') throw bad('strict', 'true or false');
  if (given.compat !== undefined && given.compat !== 'lossy' && given.compat !== 'strict')
    throw bad('compat', '"lossy" or "strict"');
  if (given.format !== undefined && given.format !== 'meerkat_v1') throw bad('format', '"meerkat_v1"');
  return { schema: given.schema, ...(given.name ? { name: given.name } : {}) };
}

/** The output_schema and the callback tools' input schemas must be valid JSON Schemas, tool names unique. */
export async function checkSchemas(
  outputSchema: Record<string, unknown> | undefined,
  tools: CallbackTool[],
): Promise<void> {
  if (!outputSchema && tools.length === 0) return;
  // Ajv is loaded only for turns that bring JSON Schemas, not at start-up.
  const { jsonValidator } = await import('../../core/ajv.ts');
  if (outputSchema) {
    const v = jsonValidator(outputSchema);
    if (!v.ok) throw new SwitchboardError('INVALID_INPUT', `output_schema is not a valid JSON Schema: ${v.message}`);
  }
  const seen = new Set<string>();
  for (const [i, t] of tools.entries()) {
    if (seen.has(t.name)) throw new SwitchboardError('INVALID_INPUT', `tools.${i}.name: '${t.name}' is given twice.`);
    seen.add(t.name);
    if (t.input_schema.type !== 'object')
      throw new SwitchboardError(
        'INVALID_INPUT',
        `tools.${i}.input_schema must have type "object" (tool inputs are objects), e.g. {"type": "object", "properties": {…}}.`,
      );
    const v = jsonValidator(t.input_schema);
    if (!v.ok)
      throw new SwitchboardError('INVALID_INPUT', `tools.${i}.input_schema is not a valid JSON Schema: ${v.message}`);
  }
}

/**
 * The results a resume hands the model: the session's own tools' results kept from its pause, then the caller's
 * answers in the order the calls were made. They must answer exactly the pending calls; undefined when there are
 * none (a resume with a prompt only).
 */
export function answeredToolResults(meta: SessionMeta, given: GivenToolResult[]): ToolResultBlock[] | undefined {
  if (meta.status === 'pending_tool_call' && meta.pending) {
    const expected = meta.pending.calls.map((c) => c.id);
    if (!given.length)
      throw new SwitchboardError(
        'INVALID_INPUT',
        `Session '${meta.session_name}' is waiting for tool results: answer ${expected.join(', ')} with tool_results [{tool_use_id, content, is_error?}].`,
        { pending_tool_calls: meta.pending.calls },
      );
    const ids = new Set(given.map((r) => r.tool_use_id));
    const missing = expected.filter((id) => !ids.has(id));
    const unknown = given.map((r) => r.tool_use_id).filter((id) => !expected.includes(id));
    if (missing.length || unknown.length)
      throw new SwitchboardError(
        'INVALID_INPUT',
        `tool_results must answer exactly the pending calls ${expected.join(', ')}${missing.length ? `; missing: ${missing.join(', ')}` : ''}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}.`,
        { pending_tool_calls: meta.pending.calls },
      );
    return [
      ...meta.pending.local_results,
      ...expected.map((id) => {
        const r = given.find((g) => g.tool_use_id === id) as GivenToolResult;
        return {
          type: 'tool_result' as const,
          tool_use_id: id,
          content: r.content,
          ...(r.is_error ? { is_error: true } : {}),
        };
      }),
    ];
  }
  if (given.length)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `tool_results: session '${meta.session_name}' has no pending tool calls (status ${meta.status}); resume with a prompt instead.`,
    );
  return undefined;
}
