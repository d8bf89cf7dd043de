// The tool loop of the API providers: call the model, run Switchboard's own tools, pause on callback tools,
// and go on until the model answers without tools. Each provider supplies only `complete` for its API.
import { SwitchboardError } from '../../core/errors.ts';
import { repairHistory } from './history.ts';
import type { Block, Message, ToolSpec, TurnOutcome, TurnRequest } from './providers/provider.ts';
import type { PendingToolCall, ToolResultBlock, Usage } from './session-types.ts';

export interface Completion {
  /** Text and tool_use blocks of the model's reply. */
  content: Block[];
  usage: Usage;
}

export interface CompleteArgs {
  system?: string;
  messages: Message[];
  tools: ToolSpec[];
  model: string;
  maxTokens: number;
  signal: AbortSignal;
}

export type Complete = (args: CompleteArgs) => Promise<Completion>;

function textOf(blocks: Block[]): string {
  return blocks
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('');
}

/**
 * Run one turn on a model API: the new user message (tool results first, then the prompt), then model calls
 * until the model stops asking for tools, a callback tool pauses the turn, or `maxModelCalls` runs out.
 *
 * @example
 * return runToolLoop(req, 'claude-sonnet-4-5', (args) => callMyApi(args));
 */
export async function runToolLoop(req: TurnRequest, model: string, complete: Complete): Promise<TurnOutcome> {
  const messages: Message[] = [...req.history];
  const fresh: Block[] = [
    ...(req.toolResults ?? []),
    ...(req.prompt ? [{ type: 'text' as const, text: req.prompt }] : []),
  ];
  if (fresh.length) {
    const context = req.turnContext ? [{ type: 'text' as const, text: req.turnContext }] : [];
    messages.push({ role: 'user', content: [...fresh, ...context] });
    req.emit([{ type: 'message', role: 'user', content: fresh }]);
  }
  const tools: ToolSpec[] = [
    ...req.localTools.map(({ name, description, input_schema }) => ({ name, description, input_schema })),
    ...req.callbackTools,
  ];
  const local = new Map(req.localTools.map((t) => [t.name, t]));
  const callback = new Set(req.callbackTools.map((t) => t.name));
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  let toolCalls = 0;
  for (let call = 1; call <= req.maxModelCalls; call++) {
    if (req.signal.aborted) throw req.signal.reason;
    const reply = await complete({
      system: req.systemPrompt,
      messages: repairHistory(messages),
      tools,
      model,
      maxTokens: req.maxTokens,
      signal: req.signal,
    });
    usage.input_tokens += reply.usage.input_tokens;
    usage.output_tokens += reply.usage.output_tokens;
    messages.push({ role: 'assistant', content: reply.content });
    req.emit([{ type: 'message', role: 'assistant', content: reply.content, usage: reply.usage }]);
    const uses = reply.content.filter((b) => b.type === 'tool_use') as Extract<Block, { type: 'tool_use' }>[];
    const done = (status: TurnOutcome['status'], pending?: TurnOutcome['pending']): TurnOutcome => ({
      status,
      text: textOf(reply.content),
      ...(pending ? { pending } : {}),
      usage,
      modelCalls: call,
      toolCalls,
    });
    if (!uses.length) return done('completed');
    toolCalls += uses.length;
    const pending: PendingToolCall[] = [];
    const localUses = uses.filter((u) => local.has(u.name) || !callback.has(u.name));
    for (const u of uses) {
      req.emit([
        {
          type: 'tool_call',
          id: u.id,
          name: u.name,
          args: u.input,
          kind: local.get(u.name)?.kind ?? (callback.has(u.name) ? 'callback' : 'unknown'),
        },
      ]);
      if (!local.has(u.name) && callback.has(u.name)) pending.push({ id: u.id, tool_name: u.name, args: u.input });
    }
    // Switchboard's own tools of one reply run in parallel; their results keep the order of the calls.
    const results: ToolResultBlock[] = await Promise.all(
      localUses.map(async (u): Promise<ToolResultBlock> => {
        const tool = local.get(u.name);
        if (!tool)
          return {
            type: 'tool_result',
            tool_use_id: u.id,
            is_error: true,
            content: `Unknown tool '${u.name}'. Available tools: ${tools.map((t) => t.name).join(', ') || 'none'}.`,
          };
        try {
          const r = await tool.run(u.input, req.signal);
          return {
            type: 'tool_result',
            tool_use_id: u.id,
            content: r.content,
            ...(r.is_error ? { is_error: true } : {}),
          };
        } catch (err) {
          if (req.signal.aborted) throw req.signal.reason;
          return { type: 'tool_result', tool_use_id: u.id, is_error: true, content: (err as Error).message };
        }
      }),
    );
    for (const r of results) req.emit([{ ...r }]);
    if (pending.length) return done('pending_tool_call', { calls: pending, local_results: results });
    messages.push({ role: 'user', content: results });
    req.emit([{ type: 'message', role: 'user', content: results }]);
  }
  throw new SwitchboardError(
    'INTERNAL',
    `The turn stopped after ${req.maxModelCalls} model calls without a final answer ([agents] max_model_calls).`,
  );
}
