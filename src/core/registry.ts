// The one catalog of capabilities, resources and prompts. Sources add and remove entries at run time;
// every change is announced so transports can send `list_changed` to their clients.
import { z } from 'zod';
import type { Capability } from './capability.ts';
import type { Principal } from './context.ts';
import { compareNames, isCapabilityName, toolNameOf } from './names.ts';
import type { PromptDef, ResourceDef, ResourceTemplateDef } from './resource.ts';

/** A capability as transports advertise it: names resolved, JSON Schemas generated once. */
export interface ToolDescriptor {
  name: string;
  capability: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface Entry {
  capability: Capability;
  tool: ToolDescriptor;
}

export type ChangeKind = 'tools' | 'resources' | 'prompts';
export type AddResult = { ok: true; toolName: string } | { ok: false; message: string };

/** Whether a principal may see something restricted to `roles` (none = everyone; `*` in the principal = all). */
export function allowed(principal: Principal, roles: readonly string[] | undefined): boolean {
  if (!roles || roles.length === 0) return true;
  if (principal.roles.includes('*')) return true;
  return roles.some((r) => principal.roles.includes(r));
}

/** Whether a principal may see and call a capability: its roles allow it and its exposure filter lets it through. */
export function visible(
  principal: Principal,
  capability: { name: string; roles?: readonly string[]; throughFilters?: boolean },
): boolean {
  return (
    allowed(principal, capability.roles) &&
    (principal.sees === undefined || capability.throughFilters === true || principal.sees(capability.name))
  );
}

/**
 * Rule 2 of docs/security.md: a capability that runs other capabilities on a caller's behalf (catalog.call's target,
 * the plugin hooks a hook tool dispatches, an agent's built-in tools) runs only what that caller could call directly.
 * The one check all of them make: the direct call's own check ({@link visible}) on the target's registry entry, or on
 * its name where it has none (a hook with `mcp: false`, which a profile hiding `plugin.*` hides too).
 *
 * @example
 * mayCallThrough(registry, ctx.principal, 'myplug.marker') // false when the caller's profile hides myplug.*
 */
export function mayCallThrough(registry: Registry, principal: Principal, name: string): boolean {
  return visible(principal, registry.get(name)?.capability ?? { name });
}

/**
 * JSON Schemas by Zod schema, converted once per process: built-in capabilities are registered by every hub, and
 * the startup snapshot (src/snapshot.ts) converts theirs while it is built. Entries share the result; nothing
 * changes a tool's schema after it is made.
 */
const converted = { input: new WeakMap<z.ZodType, Record<string, unknown>>(), output: new WeakMap() };

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const cached = converted[io].get(schema);
  if (cached) return cached;
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  converted[io].set(schema, json);
  return json;
}

export class Registry {
  private readonly byName = new Map<string, Entry>();
  private readonly byTool = new Map<string, Entry>();
  private readonly resources = new Map<string, ResourceDef>();
  private readonly templates = new Map<string, ResourceTemplateDef>();
  private readonly prompts = new Map<string, PromptDef>();
  private readonly listeners = new Set<(kind: ChangeKind) => void>();
  private batchDepth = 0;
  private pending = new Set<ChangeKind>();

  /** Add a capability. A duplicate name or tool name is refused with a message naming both sources. */
  add(capability: Capability, opts: { replace?: boolean } = {}): AddResult {
    if (!isCapabilityName(capability.name)) {
      return {
        ok: false,
        message: `Invalid capability name '${capability.name}': expected 'domain.action' (letters, digits, '_' or '-', segments joined by '.').`,
      };
    }
    const tool = toolNameOf(capability.name);
    const existing = this.byName.get(capability.name) ?? this.byTool.get(tool);
    if (existing && !opts.replace) {
      return {
        ok: false,
        message: `Capability '${capability.name}' (${capability.source ?? 'unknown source'}) collides with '${existing.capability.name}' from ${existing.capability.source ?? 'unknown source'}.`,
      };
    }
    if (existing) this.removeEntry(existing);
    let inputSchema: Record<string, unknown>;
    let outputSchema: Record<string, unknown> | undefined;
    try {
      inputSchema = capability.inputJsonSchema ?? jsonSchemaOf(capability.input, 'input');
      outputSchema =
        capability.outputJsonSchema ?? (capability.output ? jsonSchemaOf(capability.output, 'output') : undefined);
    } catch (err) {
      return {
        ok: false,
        message: `Capability '${capability.name}': its schema cannot be turned into JSON Schema: ${(err as Error).message}`,
      };
    }
    if (inputSchema.type !== 'object') {
      return {
        ok: false,
        message: `Capability '${capability.name}': input must be a z.object(...) (MCP tool inputs are objects).`,
      };
    }
    const annotations = capability.annotations ? { ...capability.annotations } : undefined;
    const entry: Entry = {
      capability,
      tool: {
        name: tool,
        capability: capability.name,
        ...(capability.title ? { title: capability.title } : {}),
        description: capability.description,
        inputSchema,
        ...(outputSchema ? { outputSchema } : {}),
        ...(annotations ? { annotations } : {}),
      },
    };
    this.byName.set(capability.name, entry);
    this.byTool.set(tool, entry);
    this.changed('tools');
    return { ok: true, toolName: tool };
  }

  remove(name: string): boolean {
    const entry = this.byName.get(name);
    if (!entry) return false;
    this.removeEntry(entry);
    this.changed('tools');
    return true;
  }

  /**
   * Remove everything whose source matches (a reloaded module, a disconnected server): capabilities, resources,
   * resource templates and prompts, announced as one change per kind.
   */
  removeSource(source: string): number {
    let n = 0;
    this.batch(() => {
      for (const entry of [...this.byName.values()]) {
        if (entry.capability.source === source) {
          this.removeEntry(entry);
          this.changed('tools');
          n++;
        }
      }
      for (const [kind, map] of [
        ['resources', this.resources],
        ['resources', this.templates],
        ['prompts', this.prompts],
      ] as const) {
        for (const [key, def] of [...map.entries()]) {
          if (def.source === source) {
            map.delete(key);
            this.changed(kind);
            n++;
          }
        }
      }
    });
    return n;
  }

  private removeEntry(entry: Entry): void {
    this.byName.delete(entry.capability.name);
    this.byTool.delete(entry.tool.name);
  }

  /** Look up by capability name (`task.create`) or tool name (`task__create`). */
  get(nameOrTool: string): Entry | undefined {
    return this.byName.get(nameOrTool) ?? this.byTool.get(nameOrTool);
  }

  /** Every entry the principal may see, sorted by name. */
  list(principal?: Principal): Entry[] {
    const all = [...this.byName.values()];
    const shown = principal ? all.filter((e) => visible(principal, e.capability)) : all;
    return shown.sort((a, b) => compareNames(a.capability.name, b.capability.name));
  }

  /** Every entry, in no particular order, for callers that need no sorting. */
  entries(): IterableIterator<Entry> {
    return this.byName.values();
  }

  get size(): number {
    return this.byName.size;
  }

  addResource(def: ResourceDef): void {
    this.resources.set(def.uri, def);
    this.changed('resources');
  }
  addResourceTemplate(def: ResourceTemplateDef): void {
    this.templates.set(def.uriTemplate, def);
    this.changed('resources');
  }
  addPrompt(def: PromptDef): void {
    this.prompts.set(def.name, def);
    this.changed('prompts');
  }
  removeResource(uri: string): boolean {
    const had = this.resources.delete(uri);
    if (had) this.changed('resources');
    return had;
  }
  /** Remove a prompt (a script deleted from disk); true when it existed. */
  removePrompt(name: string): boolean {
    const had = this.prompts.delete(name);
    if (had) this.changed('prompts');
    return had;
  }
  hasResourceTemplate(uriTemplate: string): boolean {
    return this.templates.has(uriTemplate);
  }
  listResources(principal?: Principal): ResourceDef[] {
    return [...this.resources.values()].filter((r) => !principal || allowed(principal, r.roles));
  }
  listResourceTemplates(principal?: Principal): ResourceTemplateDef[] {
    return [...this.templates.values()].filter((r) => !principal || allowed(principal, r.roles));
  }
  listPrompts(principal?: Principal): PromptDef[] {
    return [...this.prompts.values()].filter((p) => !principal || allowed(principal, p.roles));
  }
  getResource(uri: string): ResourceDef | undefined {
    return this.resources.get(uri);
  }
  getPrompt(name: string): PromptDef | undefined {
    return this.prompts.get(name);
  }

  /** Subscribe to change events; returns an unsubscribe function. */
  onChange(listener: (kind: ChangeKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Group many changes (loading a folder of modules) into one event per kind. */
  batch<T>(fn: () => T): T {
    this.batchDepth++;
    try {
      return fn();
    } finally {
      this.batchDepth--;
      if (this.batchDepth === 0) {
        const kinds = [...this.pending];
        this.pending.clear();
        for (const k of kinds) this.emit(k);
      }
    }
  }

  private changed(kind: ChangeKind): void {
    if (this.batchDepth > 0) this.pending.add(kind);
    else this.emit(kind);
  }

  private emit(kind: ChangeKind): void {
    for (const l of this.listeners) {
      try {
        l(kind);
      } catch {
        // A failing listener must not stop the others or the registry change.
      }
    }
  }
}
