// "Tools from MCP servers" for the API providers: the agent's own servers from agent.mcp.json, opened for one turn
// through the hub's shared MCP client (src/mcp-client) — the same connections, errors and SSE support upstream
// servers get.
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import pino from 'pino';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../config/schema.ts';
import { watchSignal } from '../../core/cancellation.ts';
import type { Catalog } from '../../mcp-client/catalog.ts';
import { UpstreamConnection } from '../../mcp-client/connection.ts';
import type { ResolvedServer } from '../../mcp-client/server-spec.ts';
import type { McpServerSpec } from './definitions.ts';
import type { LocalTool } from './providers/provider.ts';

/** Tools of a set of MCP servers for one turn; `close` ends the connections (and stdio children). */
export interface McpToolSource {
  tools: LocalTool[];
  /** Servers that could not be reached, with why (the turn goes on without them). */
  failures: { server: string; error: string }[];
  close(): Promise<void>;
}

/** Opens the servers of an agent for one turn. */
export type McpToolOpener = (
  servers: Record<string, McpServerSpec>,
  opts: { cwd: string; env: Record<string, string>; signal: AbortSignal },
) => Promise<McpToolSource>;

/** How long one server may take to connect and list within a turn. */
const STARTUP_MS = 30_000;
/** One call of a server's tool; the turn's own timeout and cancel still apply through the signal. */
const CALL_MS = 120_000;

function textOf(result: { content?: unknown; structuredContent?: unknown }): string {
  const blocks = Array.isArray(result.content) ? (result.content as { type?: string; text?: string }[]) : [];
  const text = blocks.map((b) => (b.type === 'text' ? b.text : JSON.stringify(b))).join('\n');
  return text || (result.structuredContent ? JSON.stringify(result.structuredContent) : '');
}

/** An agent.mcp.json entry (Claude Code's format) as a connection spec. */
function specOf(name: string, spec: McpServerSpec, opts: { cwd: string; env: Record<string, string> }): ResolvedServer {
  const base = {
    name,
    args: [] as string[],
    env: {} as Record<string, string>,
    headers: {} as Record<string, string>,
    timeoutMs: CALL_MS,
    startupTimeoutMs: STARTUP_MS,
    maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
    allow: [],
    deny: [],
    roles: [],
  };
  const server: ResolvedServer =
    'url' in spec
      ? {
          ...base,
          transport: spec.type === 'sse' ? 'sse' : 'http',
          url: spec.url,
          headers: spec.headers,
          fingerprint: '',
        }
      : {
          ...base,
          transport: 'stdio',
          command: spec.command,
          args: spec.args,
          // The minimal environment the hub gives every child, plus the server's own.
          env: { ...opts.env, ...spec.env },
          cwd: spec.cwd ? (isAbsolute(spec.cwd) ? spec.cwd : resolve(opts.cwd, spec.cwd)) : opts.cwd,
          fingerprint: '',
        };
  server.fingerprint = createHash('sha256').update(JSON.stringify(server)).digest('hex').slice(0, 16);
  return server;
}

/** Servers' stderr and connection notes go nowhere here: failures come back as `failures` with their reason. */
const quiet = pino({ level: 'silent' });

/**
 * Connect to every server (in parallel), list its tools and offer them as `server__tool`.
 *
 * @example
 * const mcp = await openMcpTools({ fs: { command: 'npx', args: ['server-filesystem', '.'] } }, { cwd, env, signal });
 * try { … mcp.tools … } finally { await mcp.close(); }
 */
export const openMcpTools: McpToolOpener = async (servers, opts) => {
  const connections: UpstreamConnection[] = [];
  const tools: LocalTool[] = [];
  const failures: { server: string; error: string }[] = [];
  await Promise.all(
    Object.entries(servers).map(async ([server, spec]) => {
      let catalog: Catalog | undefined;
      const conn = new UpstreamConnection(specOf(server, spec, opts), quiet, {
        catalog: (c) => {
          catalog = c.catalog;
        },
        status: () => {},
      });
      connections.push(conn);
      conn.start();
      try {
        await conn.ready(watchSignal(opts.signal));
      } catch (err) {
        failures.push({ server, error: (err as Error).message });
        await conn.stop();
        return;
      }
      for (const t of catalog?.tools ?? conn.catalog?.tools ?? []) {
        tools.push({
          kind: 'mcp',
          name: `${server}__${t.name}`.slice(0, 64),
          description: t.description ?? `${t.name} from MCP server ${server}`,
          input_schema: t.inputSchema as Record<string, unknown>,
          async run(args, signal) {
            const r = await conn.callTool(t.name, (args ?? {}) as Record<string, unknown>, {
              cancel: watchSignal(signal),
            });
            return { content: textOf(r), is_error: Boolean(r.isError) };
          },
        });
      }
    }),
  );
  return {
    tools,
    failures,
    close: async () => {
      await Promise.all(connections.map((c) => c.stop()));
    },
  };
};
