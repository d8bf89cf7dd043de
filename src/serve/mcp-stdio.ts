// MCP over stdio: one connection per process; stdout carries only protocol, logs go to stderr.
// The caller's roles come from `[stdio] roles` (default: all).
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Hub } from '../hub.ts';
import { type Exposure, makePrincipal } from '../policy/principal.ts';
import { buildMcpServer } from './mcp-server.ts';

export interface StdioHandle {
  close(): Promise<void>;
  /** Resolves when the client closes stdin. */
  closed: Promise<void>;
}

export function serveMcpStdio(hub: Hub, opts: { exposure?: Exposure } = {}): StdioHandle {
  // Whoever started this process over stdio already runs as the local user; `[stdio] roles` narrows what they see.
  const principal = makePrincipal(hub.config.get(), opts.exposure, {
    id: 'stdio',
    roles: hub.config.get().stdio.roles,
    kind: 'stdio',
  });
  const unsubscribers: (() => void)[] = [];
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => {
    resolveClosed = r;
  });
  const handle = serveStdio(
    () => {
      const server = buildMcpServer(hub, { principal, transport: 'stdio' });
      // Tell the client when tools, resources or prompts change (sources load in the background).
      unsubscribers.push(
        hub.services.registry.onChange((kind) => {
          const send =
            kind === 'tools'
              ? server.sendToolListChanged()
              : kind === 'resources'
                ? server.sendResourceListChanged()
                : server.sendPromptListChanged();
          send.catch(() => {});
        }),
      );
      const prevClose = server.onclose;
      server.onclose = () => {
        prevClose?.();
        resolveClosed();
      };
      return server;
    },
    { onerror: (err) => hub.services.logger.warn({ err: err.message }, 'stdio transport error') },
  );
  process.stdin.once('end', () => resolveClosed());
  return {
    closed,
    async close() {
      for (const u of unsubscribers) u();
      await handle.close();
    },
  };
}
