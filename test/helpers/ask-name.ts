// The elicitation the interactive test capabilities ask with (inputRequired), and how they read the client's answer.
import type { CallContext } from '../../src/core/context.ts';

export const ASK_NAME = {
  method: 'elicitation/create',
  params: {
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
} as const;

/** The name the client accepted for ASK_NAME in this round, if it did. */
export function acceptedName(ctx: CallContext): string | undefined {
  const answer = ctx.mcp?.inputResponses?.name as { action?: string; content?: { name?: string } } | undefined;
  return answer?.action === 'accept' ? answer.content?.name : undefined;
}
