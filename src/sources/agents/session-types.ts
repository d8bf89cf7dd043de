// The agent session as the agents room shapes it: the meta record (what a start fixed, the totals, the last result),
// the pieces it is made of, and the transcript types. Stores keep it (src/store/: files or Redis) without knowing
// more of it than `AgentSessionRecord`.
import type { PermissionMode } from '../../config/schema.ts';
import type { AgentTranscriptEvent, AgentTranscriptPage, AgentTurnLock } from '../../store/contract.ts';
import type { ProviderName } from './definitions.ts';

export type TranscriptPage = AgentTranscriptPage;
export type TurnLock = AgentTurnLock;

/**
 * Bumped only for changes an older reader cannot take. Fields added since 1 are optional: `options.permission_mode`
 * (metas written before it lack it; resume fills it in from the agent's grant).
 */
export const META_SCHEMA_VERSION = 1;

export type SessionStatus = 'running' | 'completed' | 'pending_tool_call' | 'failed' | 'cancelled' | 'interrupted';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/** A tool the calling client executes itself (callback tool). */
export interface CallbackTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface PendingToolCall {
  id: string;
  tool_name: string;
  args: unknown;
}

/** A tool result block in the neutral (Anthropic-shaped) history. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** What a start fixed for the whole session; resume reuses it. */
export interface SessionOptions {
  system_prompt?: string;
  max_tokens?: number;
  /** The JSON Schema itself (Meerkat's wrapper form is unwrapped at start). */
  output_schema?: Record<string, unknown>;
  /** The start's parameters (agents with a parameters_schema): every turn's system prompt fills `${params.X}` from them. */
  parameters?: Record<string, unknown>;
  /** The wrapper's `name`, said to the model with the schema. */
  output_schema_name?: string;
  structured_output_retries: number;
  tools: CallbackTool[];
  /** claude-cli: the `--permission-mode` its turns run with (checked against its agent.json before each turn). */
  permission_mode?: PermissionMode;
  enable_builtins: boolean;
  builtin_config: { enable_shell: boolean; shell_timeout_secs: number };
}

/** Why a completed turn has no structured_output: the last answer, how many were checked, what was wrong. */
export interface ExtractionError {
  last_output: string;
  attempts: number;
  reason: string;
}

/** The result of the last finished turn, as agent__result returns it. */
export interface TurnResult {
  session_id: string;
  status: SessionStatus;
  turns: number;
  tool_calls: number;
  usage: Usage;
  content: string;
  structured_output: unknown;
  /** Always null: Meerkat's are warnings from lowering a schema for a provider, which Switchboard does not do. */
  schema_warnings: string[] | null;
  /** The answer still did not match output_schema after the retries (Meerkat's `extraction_error`). */
  extraction_error?: ExtractionError;
  pending_tool_calls?: PendingToolCall[];
  error?: string;
  provider_session_id?: string | null;
  finished_at?: string;
}

export interface SessionMeta {
  schema_version: number;
  session_name: string;
  agent: string | null;
  provider: ProviderName;
  model: string | null;
  project_dir: string;
  created_at: string;
  last_resumed_at: string | null;
  status: SessionStatus;
  provider_session_id: string | null;
  /** Totals over the session's life. */
  usage: Usage;
  turns: number;
  tool_calls: number;
  options: SessionOptions;
  /** Callback calls the client still has to answer, and results of local tools from the same model reply. */
  pending?: { calls: PendingToolCall[]; local_results: ToolResultBlock[] };
  last_result?: TurnResult;
}

/** One transcript line. `type` says what happened; the rest depends on it. */
export type TranscriptEvent = AgentTranscriptEvent;
