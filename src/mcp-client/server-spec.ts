// What an MCP client connection needs to know about one server: how to reach it, its limits, and which of its
// tools to show. Upstream servers from the config and an agent's own servers are both turned into this.

import type { Fence } from '../core/sandbox.ts';

export type UpstreamTransport = 'stdio' | 'http' | 'sse';

/** A remote server's OAuth login settings, variables expanded (`[servers.oauth]`). */
export interface ResolvedOAuth {
  clientId?: string;
  clientSecret?: string;
  scopes: string[];
  /** One login for every caller; otherwise one per principal. */
  shared: boolean;
  clientMetadataUrl?: string;
  clientName: string;
}

export interface ResolvedServer {
  name: string;
  transport: UpstreamTransport;
  command?: string;
  args: string[];
  /** Only what the server's config sets; the child also gets the SDK's minimal default environment. */
  env: Record<string, string>;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
  timeoutMs: number;
  startupTimeoutMs: number;
  /** The stdio server's fence (core/sandbox.ts); absent: it runs unfenced (`sandbox = "off"`). */
  fence?: Fence;
  /** Stop a stdio server unused this long, in ms (0 or unset: never); the next request starts it again. */
  idleTimeoutMs?: number;
  /** The longest line a stdio server may write, in bytes; a longer answer fails its call (UPSTREAM). */
  maxMessageBytes: number;
  allow: string[];
  deny: string[];
  roles: string[];
  /** Present when the server logs in with OAuth. */
  oauth?: ResolvedOAuth;
  /** Changes whenever anything that affects the connection or the catalog changes. */
  fingerprint: string;
}
