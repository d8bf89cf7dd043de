// Reading an MCP registry's v0.1 API (the official registry's stable version, and the generic API every
// subregistry serves) with Node's fetch, each answer checked with Zod and kept on disk for `[registry] cache_ms`.
// A registry that cannot be reached or answers garbage falls back to the last answer on disk, saying so.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { cacheDir } from '../cli/snapshot-cache.ts';
import { SwitchboardError } from '../core/errors.ts';
import { describeIssues } from '../core/pipeline.ts';
import { type ServerList, ServerListSchema, type ServerResponse, ServerResponseSchema } from './schema.ts';

export interface RegistryOptions {
  /** The registry's base URL (`[registry] url`). */
  url: string;
  /** How long an answer on disk is used without asking, in ms (`[registry] cache_ms`). */
  cacheMs: number;
  /** Ask the registry even when a fresh answer is on disk (`--refresh`). */
  refresh?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Told when a stale answer stands in for one the registry could not give. */
  warn?: (message: string) => void;
  timeoutMs?: number;
}

interface Cached {
  url: string;
  fetchedAt: number;
  body: unknown;
}

/** `<cache>/registry`: `$SWITCHBOARD_CACHE_DIR`, else `$XDG_CACHE_HOME/switchboard`, else `~/.cache/switchboard`. */
export const registryCacheDir = (env: NodeJS.ProcessEnv = process.env) => join(cacheDir(env), 'registry');

export class RegistryClient {
  constructor(private readonly opts: RegistryOptions) {}

  /** Servers whose name (or, on newer registries, description) contains `search`; latest versions only. */
  async search(search: string, limit: number): Promise<ServerList> {
    const query = new URLSearchParams({ search, limit: String(limit), version: 'latest' });
    const answer = await this.get(`v0.1/servers?${query}`, ServerListSchema, 'a server list ({servers: […]})');
    return answer ?? { servers: [] };
  }

  /** One version of a server (`latest` by default); undefined when the registry has no such server or version. */
  async server(name: string, version = 'latest'): Promise<ServerResponse | undefined> {
    const path = `v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`;
    return this.get(path, ServerResponseSchema, 'a server ({server: {name, version, packages, remotes}})');
  }

  /** Every version of a server, newest first; undefined when the registry has no such server. */
  async versions(name: string): Promise<ServerList | undefined> {
    const path = `v0.1/servers/${encodeURIComponent(name)}/versions`;
    return this.get(path, ServerListSchema, 'a version list ({servers: […]})');
  }

  private endpoint(path: string): string {
    const base = this.opts.url.endsWith('/') ? this.opts.url : `${this.opts.url}/`;
    return new URL(path, base).toString();
  }

  private cacheFile(url: string): string {
    const key = createHash('sha256').update(url).digest('hex').slice(0, 32);
    return join(registryCacheDir(this.opts.env), `${key}.json`);
  }

  private readCache(url: string): Cached | undefined {
    try {
      const cached = JSON.parse(readFileSync(this.cacheFile(url), 'utf8')) as Cached;
      return cached.url === url && typeof cached.fetchedAt === 'number' ? cached : undefined;
    } catch {
      return undefined; // none yet, or unreadable: ask the registry
    }
  }

  private writeCache(url: string, body: unknown): void {
    const file = this.cacheFile(url);
    try {
      mkdirSync(registryCacheDir(this.opts.env), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ url, fetchedAt: Date.now(), body } satisfies Cached));
      renameSync(tmp, file);
    } catch {
      // An unwritable cache only costs the next command a request.
    }
  }

  /** GET one endpoint: a fresh cached answer, else the registry's (cached), else a stale cached one; 404 → undefined. */
  private async get<T>(path: string, schema: z.ZodType<T>, expected: string): Promise<T | undefined> {
    const url = this.endpoint(path);
    const cached = this.readCache(url);
    const fresh = cached && !this.opts.refresh && Date.now() - cached.fetchedAt < this.opts.cacheMs;
    if (fresh) {
      const parsed = schema.safeParse(cached.body);
      if (parsed.success) return parsed.data;
    }
    let problem: string;
    try {
      const res = await fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000),
      });
      if (res.status === 404) return undefined;
      const text = await res.text();
      if (!res.ok) problem = `answered HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
      else {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        const parsed = body === undefined ? undefined : schema.safeParse(body);
        if (parsed?.success) {
          this.writeCache(url, body);
          return parsed.data;
        }
        problem = parsed
          ? `answered JSON that is not ${expected}: ${describeIssues(parsed.error.issues).message.slice(0, 300)}`
          : `answered something that is not JSON (expected ${expected}): ${JSON.stringify(text.slice(0, 80))}`;
      }
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      problem = `could not be reached (${cause?.code ?? cause?.message ?? (err as Error).message})`;
    }
    const stale = cached && schema.safeParse(cached.body);
    if (cached && stale?.success) {
      this.opts.warn?.(
        `The MCP registry at ${url} ${problem}; using its answer cached ${new Date(cached.fetchedAt).toISOString()}.`,
      );
      return stale.data;
    }
    throw new SwitchboardError(
      'UNAVAILABLE',
      `The MCP registry at ${url} ${problem}. Check [registry] url in your configuration (docs/upstream.md#registry); it should serve the registry API (GET /v0.1/servers).`,
      { url },
    );
  }
}
