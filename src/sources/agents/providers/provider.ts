// The small interface every model provider implements: run one turn of a session and report what happened.
// The runner owns sessions, locks, transcripts and structured output; a provider only talks to its model.
import type { AgentsConfig } from '../../../config/schema.ts';
import type { TraceContext } from '../../../core/trace-context.ts';
import type { AgentDefinition, ProviderName } from '../definitions.ts';
import type {
  CallbackTool,
  PendingToolCall,
  SessionMeta,
  ToolResultBlock,
  TranscriptEvent,
  Usage,
} from '../session-types.ts';

/** A content block of the neutral history (the Anthropic Messages shape; the OpenAI provider converts). */
export type Block =
  | { type: 'text'; text: string }
  | {
      type: 'tool_use';
      id: string;
      name: string;
      input: unknown;
      /** Gemini's `thoughtSignature` of the call, which it must get back with it (other APIs never see it). */
      signature?: string;
    }
  | ToolResultBlock;

export interface Message {
  role: 'user' | 'assistant';
  content: Block[];
}

export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** A tool Switchboard runs itself during a turn (built-ins, shell, the agent's MCP servers). */
export interface LocalTool extends ToolSpec {
  kind: 'builtin' | 'shell' | 'mcp';
  run(args: unknown, signal: AbortSignal): Promise<{ content: string; is_error: boolean }>;
}

export interface TurnRequest {
  meta: Readonly<SessionMeta>;
  agent?: AgentDefinition;
  /** The agent's prompt, the call's override and the output-schema instruction, joined. */
  systemPrompt?: string;
  model?: string;
  maxTokens: number;
  /** Whether max_tokens was asked for explicitly (claude-cli only passes it on then). */
  maxTokensExplicit: boolean;
  /** New user text for this turn (may be empty when tool results continue a paused turn). */
  prompt?: string;
  /** Answers to the pending tool calls of a paused turn (local results first, then the client's). */
  toolResults?: ToolResultBlock[];
  /**
   * Meerkat's transient_turn_context: text sent after the new user message to this turn's model calls only — never
   * written to the transcript, so later turns do not see it.
   */
  turnContext?: string;
  /** The conversation so far (API providers keep it; claude-cli keeps its own). */
  history: Message[];
  callbackTools: CallbackTool[];
  localTools: LocalTool[];
  /**
   * SWITCHBOARD_CALLER_LIMIT for the processes the provider starts itself (claude-cli: claude and the MCP servers it
   * starts), so a `switchboard serve` among them serves at most what the caller could call (docs/security.md rule 2).
   */
  limitEnv: Record<string, string>;
  /** The W3C trace of the call that started the turn: the model calls pass it on (HTTP headers, or TRACEPARENT). */
  trace?: TraceContext;
  maxModelCalls: number;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  config: AgentsConfig;
  /** Folders whose files decide what the hub runs (grant.ts `hubFileDirs`): the session must not edit them. */
  hubDirs: readonly string[];
  /** Record events in the transcript and send them out as progress. */
  emit(events: TranscriptEvent[]): void;
}

export interface TurnOutcome {
  status: 'completed' | 'pending_tool_call';
  /** The final text (or the text said before the pending tool calls). */
  text: string;
  pending?: { calls: PendingToolCall[]; local_results: ToolResultBlock[] };
  providerSessionId?: string;
  usage: Usage;
  /** Model calls made in this turn. */
  modelCalls: number;
  toolCalls: number;
}

export interface Provider {
  name: ProviderName;
  /** What is missing to use this provider (which variable or setting), or undefined when it is ready. */
  problem(config: AgentsConfig, env: NodeJS.ProcessEnv, projectDir: string): string | undefined;
  /** The model used when neither the call nor the agent names one. */
  defaultModel(config: AgentsConfig): string | undefined;
  /** Whether the provider runs callback tools, built-ins and the agent's MCP servers through Switchboard. */
  toolLoop: boolean;
  runTurn(req: TurnRequest): Promise<TurnOutcome>;
}
