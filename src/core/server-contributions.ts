// Upstream MCP servers brought by something other than the config file — a plugin's `mcp_servers` — kept where
// every source can reach them: the plugin source contributes, the upstream source runs them beside `[[servers]]`.

/** A server entry in the `[[servers]]` shape (validated by the upstream source like one from the file). */
export type ServerEntry = Record<string, unknown> & { name: string };

export class ServerContributions {
  private readonly bySource = new Map<string, ServerEntry[]>();
  private readonly listeners = new Set<() => void>();

  /** Replace what `source` contributes (an empty list withdraws it). */
  set(source: string, servers: ServerEntry[]): void {
    const before = JSON.stringify(this.bySource.get(source) ?? []);
    if (servers.length) this.bySource.set(source, servers);
    else this.bySource.delete(source);
    if (before === JSON.stringify(servers)) return;
    for (const l of this.listeners) l();
  }

  /** Every contributed server, in source order. */
  all(): ServerEntry[] {
    return [...this.bySource.values()].flat();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
