// Names for upstream tools and prompts: `server__tool`, decided for all servers at once in name order, so the
// outcome never depends on which server answered first. A clash is renamed with a numbered suffix and reported.
import picomatch from 'picomatch';
import { isCapabilityName, toolNameOf } from '../../core/names.ts';

/** Domains the hub's own sources use; a server with one of these names gets `<name>_mcp` as its prefix. */
export const RESERVED_DOMAINS = new Set(['task', 'system', 'script', 'agent', 'session']);

export interface NamedItem {
  /** The name the server uses. */
  original: string;
  /** The capability (or prompt) name Switchboard uses: `server.tool`. */
  name: string;
  /** Set when the natural name was taken: why, and what it would have been. */
  renamed?: { from: string; reason: string };
}

export interface ServerNames {
  /** The prefix of this server's names (its own name unless that is reserved). */
  domain: string;
  domainReason?: string;
  tools: NamedItem[];
  prompts: NamedItem[];
  /** Tools the server lists but `tools.allow`/`tools.deny` hide. */
  filtered: string[];
}

export interface ServerListing {
  name: string;
  tools: string[];
  prompts: string[];
  allow: string[];
  deny: string[];
}

/** One name segment from an upstream tool name: dots stay separators, anything outside [A-Za-z0-9_-] becomes `_`. */
function segmentOf(raw: string): string {
  const s = raw
    .split('.')
    .map((p) => p.replace(/[^A-Za-z0-9_-]/g, '_') || '_')
    .join('.');
  return isCapabilityName(s) ? s : raw.replace(/[^A-Za-z0-9_-]/g, '_') || '_';
}

/**
 * Plan every upstream name. `taken(name)` says whether a non-upstream capability already holds a capability or
 * tool name; upstream names are then given out server by server in name order, tool by tool in name order.
 *
 * @example
 * planNames([{ name: 'fs', tools: ['read_file'], prompts: [], allow: [], deny: [] }], () => false)
 * // → Map { 'fs' => { domain: 'fs', tools: [{ original: 'read_file', name: 'fs.read_file' }], … } }
 */
export function planNames(servers: ServerListing[], taken: (name: string) => boolean): Map<string, ServerNames> {
  const used = new Set<string>();
  const free = (name: string) => !taken(name) && !taken(toolNameOf(name)) && !used.has(toolNameOf(name));
  const claim = (
    natural: string,
    reason: string,
  ): NamedItem['name'] | { name: string; renamed: NamedItem['renamed'] } => {
    if (free(natural)) {
      used.add(toolNameOf(natural));
      return natural;
    }
    for (let n = 2; ; n++) {
      const candidate = `${natural}_${n}`;
      if (free(candidate)) {
        used.add(toolNameOf(candidate));
        return { name: candidate, renamed: { from: natural, reason } };
      }
    }
  };
  const plan = new Map<string, ServerNames>();
  for (const server of [...servers].sort((a, b) => a.name.localeCompare(b.name))) {
    const reserved = RESERVED_DOMAINS.has(server.name.toLowerCase());
    const domain = reserved ? `${server.name}_mcp` : server.name;
    const allow = server.allow.length ? picomatch(server.allow) : () => true;
    const deny = server.deny.length ? picomatch(server.deny) : () => false;
    const names: ServerNames = {
      domain,
      ...(reserved ? { domainReason: `'${server.name}' is a built-in domain` } : {}),
      tools: [],
      prompts: [],
      filtered: [],
    };
    for (const tool of [...server.tools].sort()) {
      if (!allow(tool) || deny(tool)) {
        names.filtered.push(tool);
        continue;
      }
      const got = claim(`${domain}.${segmentOf(tool)}`, 'the name is already taken');
      names.tools.push(typeof got === 'string' ? { original: tool, name: got } : { original: tool, ...got });
    }
    for (const prompt of [...server.prompts].sort()) {
      names.prompts.push({ original: prompt, name: toolNameOf(`${domain}.${segmentOf(prompt)}`) });
    }
    plan.set(server.name, names);
  }
  return plan;
}
