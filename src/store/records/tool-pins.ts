// Pinned tool definitions (docs/security.md#pinned-tools) as the store keeps them: one document per upstream server
// under one namespace, read by every instance (and `switchboard mcp approve`) with this schema. `approved` holds what
// an operator (or first use) approved, `pending` what the server offers now that differs and is withheld.
import { z } from 'zod';

/** The document namespace of pinned tool definitions; the key is the server's name. */
export const TOOL_PINS_NAMESPACE = 'upstream.pins';

const JsonObject = z.record(z.string(), z.unknown());

/** The parts of a tool definition a client is shown and a model reads: what is pinned and hashed. */
export const PinnedToolSchema = z.object({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: JsonObject,
  outputSchema: JsonObject.optional(),
  annotations: JsonObject.optional(),
});
export type PinnedTool = z.infer<typeof PinnedToolSchema>;

const Hash = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'expected sha256: and 64 lowercase hex digits');

export const ApprovedToolSchema = z.object({
  hash: Hash,
  tool: PinnedToolSchema,
  approvedAt: z.iso.datetime(),
  /** Who approved it: a principal (`cli`, a token's name) or `first-use` (trust on first use). */
  approvedBy: z.string().min(1),
});
export type ApprovedTool = z.infer<typeof ApprovedToolSchema>;

export const PendingToolSchema = z.object({
  hash: Hash,
  tool: PinnedToolSchema,
  /** When this definition was first seen (and withheld). */
  seenAt: z.iso.datetime(),
});
export type PendingTool = z.infer<typeof PendingToolSchema>;

/** One server's pins. */
export const ToolPinsSchema = z.object({
  server: z.string().min(1),
  /** By the server's own tool name. */
  approved: z.record(z.string(), ApprovedToolSchema),
  /** By the server's own tool name: offered now, not approved, withheld from clients. */
  pending: z.record(z.string(), PendingToolSchema),
});
export type ToolPins = z.infer<typeof ToolPinsSchema>;
