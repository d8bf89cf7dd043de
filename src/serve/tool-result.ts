// The one encoder of a call's outcome for the wire: the MCP CallToolResult (the SDK's handler, the edge, the CLI),
// its JSON text per protocol era (written by the edge without building the object twice), the JSON-RPC response
// around it, and the content part REST answers with.
import type { RawResult } from '../core/capability.ts';
import type { Outcome } from '../core/pipeline.ts';
import { SERVER_INFO } from './server-identity.ts';

/** The content, structured content and error flag of a raw result: what every face shows of it. */
export function rawContent(raw: RawResult): Record<string, unknown> {
  const { content, structuredContent, isError } = raw;
  return { content, ...(structuredContent ? { structuredContent } : {}), ...(isError ? { isError: true } : {}) };
}

/** The CallToolResult for an outcome: structured content plus its JSON text; failures as isError with the message. */
export function toCallToolResult(outcome: Outcome): Record<string, unknown> {
  if (outcome.ok) {
    if (outcome.raw?.mcp) return outcome.raw.mcp;
    if (outcome.raw) return rawContent(outcome.raw);
    const value = outcome.value;
    if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
    if (value === undefined) return { content: [] };
    const text = JSON.stringify(value);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return { content: [{ type: 'text', text }], structuredContent: value };
    }
    return { content: [{ type: 'text', text }] };
  }
  const { code, message, details } = outcome.error;
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    _meta: { 'switchboard/error': { code, ...(details ? { details } : {}) } },
  };
}

/**
 * The 2025-era CallToolResult JSON: `JSON.stringify(toCallToolResult(outcome))`, with a plain object result serialised once: the text content is
 * that same JSON, so the hot path quotes the string instead of walking the value twice.
 */
export function callToolResultJson(outcome: Outcome): string {
  if (outcome.ok && outcome.raw === undefined) {
    const value = outcome.value;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const text = JSON.stringify(value) as string | undefined;
      if (text !== undefined)
        return `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}`;
    }
  }
  return JSON.stringify(toCallToolResult(outcome));
}

const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/**
 * The CallToolResult JSON of a 2026-07-28 answer: `resultType: "complete"` and the server's identity in `_meta`,
 * as the SDK's 2026 codec stamps every result it encodes.
 */
export function modernCallToolResultJson(outcome: Outcome): string {
  const result = toCallToolResult(outcome);
  const meta = { ...((result._meta as Record<string, unknown> | undefined) ?? {}), [SERVER_INFO_KEY]: SERVER_INFO };
  return JSON.stringify({ ...result, resultType: 'complete', _meta: meta });
}

/** A JSON-RPC response whose result is JSON text already. */
export function jsonRpcResultText(id: string | number, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}
