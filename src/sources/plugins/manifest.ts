// Plugin manifests: `switchboard-plugin.yml`, or an unchanged Han `han-plugin.yml`, parsed and checked with Zod.
// A broken manifest is a report naming its file and field, never an exception that stops the other plugins.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isNode, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';

/** Manifest file names, in the order they are looked for in a plugin folder (the first found wins). */
export const MANIFEST_FILES = ['switchboard-plugin.yml', 'switchboard-plugin.yaml', 'han-plugin.yml'] as const;

/** Coding-agent hook events a hook may run on (Claude Code's names). */
export const AGENT_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'SessionStart',
  'SessionEnd',
  'Notification',
  'PreCompact',
] as const;
export type AgentEvent = (typeof AGENT_EVENTS)[number];

/** Hooks run on these events when the manifest names none: before the agent stops, it must pass its checks. */
export const DEFAULT_EVENTS: AgentEvent[] = ['Stop', 'SubagentStop'];

/**
 * Which manifest a plugin was read from. It decides what `dirs_with` means: a Switchboard manifest's markers must
 * all be present; Han's `han-plugin.yml` lists alternatives (`.eslintrc.json`, `eslint.config.js`), any one enough.
 */
export type ManifestFormat = 'switchboard' | 'han';

/** The format of a manifest file, from its name. */
export function formatOf(file: string): ManifestFormat {
  return file.endsWith('han-plugin.yml') ? 'han' : 'switchboard';
}

// A single value is a list of one (YAML authors write `dirs_with: package.json`); wrapping before the array check
// keeps each item's own error message, where a union would only say "Invalid input".
const oneOrMany = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined || Array.isArray(v) ? v : [v]), z.array(item));

/** One `event` entry: an agent event, with Han's `PostToolUse:Edit|Write` shorthand naming the tools it is for. */
export interface EventSpec {
  event: AgentEvent;
  /** Tool names or globs (`Edit`, `mcp__*`) from the shorthand; absent: every tool. */
  tools?: string[];
}

/**
 * The events a hook runs on. Unset: Stop and SubagentStop. A Han manifest listing `Stop` without `SubagentStop`
 * also runs on SubagentStop, as Han does (its `parseEventShorthands` adds the "implicit SubagentStop" when it writes
 * Claude Code's hooks); a Switchboard manifest means exactly the events it lists.
 *
 * @example
 * eventsOf(hook.spec, 'han') // [{ event: 'Stop' }, { event: 'SubagentStop' }] for `event: Stop`
 */
export function eventsOf(spec: Pick<HookSpec, 'event'>, format: ManifestFormat): EventSpec[] {
  if (!spec.event) return DEFAULT_EVENTS.map((event) => ({ event }));
  const events = spec.event;
  const stop = events.find((e) => e.event === 'Stop');
  if (format === 'han' && stop && !events.some((e) => e.event === 'SubagentStop'))
    return [...events, { ...stop, event: 'SubagentStop' }];
  return events;
}

const EventEntrySchema = z.string().transform((value, ctx): EventSpec => {
  const colon = value.indexOf(':');
  const name = (colon < 0 ? value : value.slice(0, colon)).trim();
  if (!(AGENT_EVENTS as readonly string[]).includes(name)) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown event '${name}': expected one of ${AGENT_EVENTS.join(', ')} (optionally 'PostToolUse:Edit|Write')`,
    });
    return z.NEVER;
  }
  const tools =
    colon < 0
      ? []
      : value
          .slice(colon + 1)
          .split('|')
          .map((t) => t.trim())
          .filter(Boolean);
  return tools.length ? { event: name as AgentEvent, tools } : { event: name as AgentEvent };
});

const DependencySchema = z.strictObject({
  plugin: z.string().min(1),
  hook: z.string().min(1),
  optional: z.boolean().default(false),
});

export const HookSchema = z.looseObject({
  command: z.string().min(1, 'command must not be empty'),
  description: z.string().optional(),
  dirs_with: oneOrMany(z.string().min(1)).default([]),
  dir_test: z.string().min(1).optional(),
  if_changed: oneOrMany(z.string().min(1)).default([]),
  timeout: z.number().int().min(1).default(30_000),
  idle_timeout: z.number().int().min(1).optional(),
  tip: z.string().optional(),
  depends_on: z.array(DependencySchema).default([]),
  mcp: z.boolean().default(true),
  event: oneOrMany(EventEntrySchema).optional(),
  tool_filter: oneOrMany(z.string().min(1)).optional(),
  /** For tool events: globs the edited file (tool_input.file_path, relative to the project) must match. */
  file_filter: oneOrMany(z.string().min(1)).optional(),
});
export type HookSpec = z.output<typeof HookSchema>;

/** An upstream MCP server a plugin brings: a command over stdio, or a URL. */
const StdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
});
const HttpServerSchema = z.strictObject({
  type: z.enum(['http', 'sse']).default('http'),
  url: z.url(),
  headers: z.record(z.string(), z.string()).default({}),
});
export const McpServerSchema = z.union([StdioServerSchema, HttpServerSchema]);
export type McpServerSpec = z.output<typeof McpServerSchema>;

export const ManifestSchema = z.looseObject({
  name: z.string().min(1).max(64).optional(),
  version: z.string().optional(),
  description: z.string().optional(),
  keywords: z.array(z.string()).default([]),
  hooks: z.record(z.string().min(1), HookSchema),
  mcp_servers: z.record(z.string().min(1), McpServerSchema).default({}),
});
export type Manifest = z.output<typeof ManifestSchema>;

export interface ManifestIssue {
  /** Dotted path of the field (`hooks.lint.timeout`), or `(root)`. */
  field: string;
  message: string;
  /** Where in the file (1-based), when the manifest could be read that far. */
  line?: number;
  column?: number;
}

export type ManifestResult =
  | { ok: true; file: string; manifest: Manifest; warnings: ManifestIssue[] }
  | { ok: false; file: string; issues: ManifestIssue[] };

const KNOWN_TOP = new Set(Object.keys(ManifestSchema.shape));
const KNOWN_HOOK = new Set(Object.keys(HookSchema.shape));

/** The manifest file of a plugin folder, or undefined when it has none. */
export function manifestFileIn(dir: string, exists: (file: string) => boolean): string | undefined {
  for (const name of MANIFEST_FILES) {
    const file = join(dir, name);
    if (exists(file)) return file;
  }
  return undefined;
}

/**
 * Parse a manifest's text. Unknown keys are warnings, not errors: Han manifests carry fields Switchboard does not
 * use, and they must load unchanged.
 *
 * @example
 * const r = parseManifest('hooks:\n  lint:\n    command: npm run lint\n', 'x/han-plugin.yml');
 * if (r.ok) r.manifest.hooks.lint.timeout; // 30000
 */
export function parseManifest(text: string, file: string): ManifestResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, lineCounter: lines });
  if (doc.errors.length) {
    return {
      ok: false,
      file,
      issues: doc.errors.map((e) => {
        const at = lines.linePos(e.pos[0]);
        return {
          field: '(root)',
          message: `YAML syntax error at line ${at.line}, column ${at.col}: ${e.message.split('\n')[0]}`,
          line: at.line,
          column: at.col,
        };
      }),
    };
  }
  const raw = doc.toJS() as unknown;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, file, issues: [{ field: '(root)', message: 'expected a mapping with a hooks section' }] };
  }
  const parsed = ManifestSchema.safeParse(raw);
  if (!parsed.success) {
    /** The line and column of the value at `path`, or of the nearest enclosing one that is there. */
    const placeOf = (path: readonly PropertyKey[]) => {
      for (let n = path.length; n >= 0; n--) {
        const node = doc.getIn(path.slice(0, n), true);
        const start = isNode(node) ? node.range?.[0] : undefined;
        if (start !== undefined) {
          const at = lines.linePos(start);
          return { line: at.line, column: at.col };
        }
      }
      return {};
    };
    return {
      ok: false,
      file,
      issues: parsed.error.issues.map((i) => ({
        ...placeOf(i.path),
        field: i.path.length ? i.path.map(String).join('.') : '(root)',
        message:
          i.path.length === 1 &&
          i.path[0] === 'hooks' &&
          i.code === 'invalid_type' &&
          (raw as { hooks?: unknown }).hooks === undefined
            ? 'hooks is missing: a manifest declares its hooks as a mapping of name → { command, … }'
            : i.message,
      })),
    };
  }
  const warnings: ManifestIssue[] = [];
  for (const key of Object.keys(raw)) {
    if (!KNOWN_TOP.has(key)) warnings.push({ field: key, message: `unknown key '${key}' is ignored` });
  }
  for (const [name, hook] of Object.entries((raw as { hooks: Record<string, object> }).hooks)) {
    for (const key of Object.keys(hook)) {
      if (!KNOWN_HOOK.has(key))
        warnings.push({ field: `hooks.${name}.${key}`, message: `unknown key '${key}' is ignored` });
    }
  }
  return { ok: true, file, manifest: parsed.data, warnings };
}

/** Read and parse a manifest file; an unreadable file is a report too. */
export function readManifest(file: string): ManifestResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { ok: false, file, issues: [{ field: '(root)', message: `cannot read: ${(err as Error).message}` }] };
  }
  return parseManifest(text, file);
}
