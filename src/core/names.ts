// Capability names ↔ MCP tool names: `domain.action` ↔ `domain__action`, at most 64 characters.
// The mapping is pure and deterministic; the registry keeps the reverse map for cut names.
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;
const CAPABILITY_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/**
 * Whether `name` is a valid capability name: `[A-Za-z0-9_-]` segments joined by dots. `domain.action` is the
 * convention; a single segment (`test_simple_text`) is allowed for fixtures and tools that must keep a fixed name.
 */
export function isCapabilityName(name: string): boolean {
  return CAPABILITY_NAME.test(name);
}

/**
 * The MCP tool name for a capability: every `.` becomes `__`; a name longer than 64 characters is cut
 * and given an 8-hex-digit hash tail of the full name, so it stays unique and stable across restarts.
 *
 * @example
 * toolNameOf('task.create') // 'task__create'
 */
export function toolNameOf(capability: string): string {
  const plain = capability.replaceAll('.', '__').replace(/[^A-Za-z0-9_-]/g, '_');
  if (plain.length <= MAX_TOOL_NAME) return plain;
  const tail = createHash('sha256').update(capability).digest('hex').slice(0, 8);
  return `${plain.slice(0, MAX_TOOL_NAME - tail.length - 1)}_${tail}`;
}

/**
 * Best-effort inverse for names that were not cut: `task__create` → `task.create`. The registry's reverse
 * map is authoritative; this is only used to explain unknown names.
 */
export function capabilityNameOf(toolName: string): string {
  return toolName.replaceAll('__', '.');
}

/** Turn an arbitrary source name (plugin, server) into a name segment: `jutsu-typescript` → `jutsu_typescript`. */
export function toSegment(raw: string): string {
  const s = raw
    .replace(/[^A-Za-z0-9_]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  return s || 'unnamed';
}

/** The order `localeCompare` gives these characters (ICU root collation): punctuation, digits, then letters. */
const COLLATION = '_-:.0123456789abcdefghijklmnopqrstuvwxyz';
const RANK = new Map([...COLLATION].map((c, i) => [c, i]));
const PLAIN = /^[a-z0-9_\-:.]*$/;

/**
 * Compare names as `a.localeCompare(b)` does, without it for plain names (lower-case letters, digits, `_ - : .`):
 * the first `localeCompare` of a process initialises ICU collation (~10 ms), which a server's start-up and first
 * answer should not pay. Other names go to `localeCompare`.
 *
 * @example
 * ['task.list', 'task_x', 'system.health'].sort(compareNames) // ['system.health', 'task_x', 'task.list']
 */
export function compareNames(a: string, b: string): number {
  if (!PLAIN.test(a) || !PLAIN.test(b)) return a.localeCompare(b);
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (RANK.get(a[i]) as number) - (RANK.get(b[i]) as number);
    if (d) return d;
  }
  return a.length - b.length;
}
