// Resources and prompts: read-only surfaces next to capabilities, kept in the same registry.
import type { z } from 'zod';
import type { RawResult } from './capability.ts';
import type { CallContext } from './context.ts';

export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

/** A fixed-URI resource such as `switchboard://welcome`. */
export interface ResourceDef {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  roles?: string[];
  /** Where it came from (`builtin`, `upstream:fs`), so a source can withdraw what it added. */
  source?: string;
  read: (ctx: CallContext) => Promise<ResourceContents[]> | ResourceContents[];
}

/** A templated resource such as `task://{id}`; `{var}` segments match one path segment. */
export interface ResourceTemplateDef {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  roles?: string[];
  /** Where it came from (`builtin`, `upstream:fs`), so a source can withdraw what it added. */
  source?: string;
  read: (
    uri: string,
    vars: Record<string, string>,
    ctx: CallContext,
  ) => Promise<ResourceContents[]> | ResourceContents[];
  /** Completion of a template variable (MCP `completion/complete`). */
  complete?: (variable: string, value: string) => string[] | Promise<string[]>;
}

export type PromptMessage = { role: 'user' | 'assistant'; content: { type: string; [key: string]: unknown } };

export interface PromptDef {
  name: string;
  title?: string;
  description?: string;
  /** Arguments as a Zod object of optional/required strings. */
  args?: z.ZodObject<any>;
  roles?: string[];
  /** Where it came from (`builtin`, `upstream:fs`), so a source can withdraw what it added. */
  source?: string;
  get: (
    args: Record<string, string>,
    ctx: CallContext,
    // A RawResult (mcpResult / inputRequired) is sent verbatim over MCP, e.g. to ask for input first.
  ) =>
    | Promise<{ description?: string; messages: PromptMessage[] } | RawResult>
    | { description?: string; messages: PromptMessage[] }
    | RawResult;
  complete?: (argument: string, value: string) => string[] | Promise<string[]>;
}

/**
 * The optional display fields of a resource or template (title, description, MIME type), only those that are set
 * — the shape MCP lists use.
 */
export function displayFields(r: { title?: string; description?: string; mimeType?: string }): {
  title?: string;
  description?: string;
  mimeType?: string;
} {
  return {
    ...(r.title ? { title: r.title } : {}),
    ...(r.description ? { description: r.description } : {}),
    ...(r.mimeType ? { mimeType: r.mimeType } : {}),
  };
}

export function defineResource(def: ResourceDef): ResourceDef {
  return def;
}
export function defineResourceTemplate(def: ResourceTemplateDef): ResourceTemplateDef {
  return def;
}
export function definePrompt(def: PromptDef): PromptDef {
  return def;
}

/** Match a URI against an RFC 6570 level-1 template (`{var}` only); returns the variables or undefined. */
export function matchTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}|\{(\w+)\}/g, (_m, a, b) => {
    names.push(a ?? b);
    return '([^/]+)';
  });
  const m = new RegExp(`^${pattern}$`).exec(uri);
  if (!m) return undefined;
  const vars: Record<string, string> = {};
  names.forEach((n, i) => {
    vars[n] = decodeURIComponent(m[i + 1]);
  });
  return vars;
}
