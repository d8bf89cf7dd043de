// An MCP session (2025 protocol, streamable HTTP) as instances share it: who opened it and the initialize request
// it began with, so any instance can continue it. Checked when saved; a record is read back as it was written.
import { z } from 'zod';
import { check, isoTime, mustBe, nonEmptyText, record, text, toJson } from './common.ts';

const McpSessionSchema = record('MCP session record', {
  /** The caller that opened the session: only it may continue it, with the same roles. */
  principal: record('principal', {
    id: nonEmptyText,
    roles: z.array(text, { error: mustBe('an array of strings') }),
    /** The profile it was opened under (`/mcp/NAME` or a bound token): it is continued under that one only. */
    profile: nonEmptyText.optional(),
  }),
  /** The client's initialize request, replayed into a fresh protocol server to restore its capabilities. */
  initialize: z.unknown(),
  createdAt: isoTime,
});

export type McpSessionRecord = z.output<typeof McpSessionSchema>;

/** The record as JSON text, checked first (INVALID_INPUT names the field). */
export function mcpSessionJson(value: unknown): string {
  return toJson(check(McpSessionSchema, value), 'MCP session record') as string;
}
