// A stand-in for an MCP registry: the v0.1 API (list with search, limit, cursor and version=latest; a server's
// versions; one version or `latest`) over node:http on 127.0.0.1, serving the server.json documents it is given.
// It counts the requests it answers (cache tests) and can be told to answer garbage or fail (fallback tests).
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { ROOT } from './cli.ts';

type Doc = { name: string; version: string; description?: string; title?: string } & Record<string, unknown>;

/** The hand-written fixtures: server.json documents in the current schema, versions of a server oldest first. */
export const REGISTRY_FIXTURES = (): Doc[] =>
  JSON.parse(readFileSync(join(ROOT, 'test/fixtures/registry/servers.json'), 'utf8'));

export interface RegistryStandIn {
  url: string;
  /** Paths with their query, in the order asked. */
  requests: string[];
  /** `ok` serves the API; `garbage` answers HTML with 200; `error` answers 500. */
  mode: 'ok' | 'garbage' | 'error';
  close(): Promise<void>;
}

/** Start a stand-in serving `docs` (a server's last document is its latest version). */
export async function startRegistry(docs: Doc[] = REGISTRY_FIXTURES()): Promise<RegistryStandIn> {
  const latest = new Map<string, Doc>();
  for (const d of docs) latest.set(d.name, d);
  const wrap = (d: Doc) => ({
    server: d,
    _meta: {
      'io.modelcontextprotocol.registry/official': {
        status: 'active',
        isLatest: latest.get(d.name) === d,
        publishedAt: '2025-12-15T10:00:00Z',
        updatedAt: '2025-12-15T10:00:00Z',
      },
    },
  });
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const state: RegistryStandIn = { url: '', requests: [], mode: 'ok', close: async () => {} };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    state.requests.push(`${url.pathname}${url.search}`);
    if (state.mode === 'garbage') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance');
    if (state.mode === 'error') return send(res, 500, { error: 'database unavailable' });
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (req.method !== 'GET' || parts[0] !== 'v0.1' || parts[1] !== 'servers')
      return send(res, 404, { error: 'Not found' });
    if (parts.length === 2) {
      const q = url.searchParams;
      const search = q.get('search')?.toLowerCase();
      let list = q.get('version') === 'latest' ? [...latest.values()] : docs;
      if (search) list = list.filter((d) => `${d.name} ${d.description ?? ''}`.toLowerCase().includes(search));
      const start = Number(q.get('cursor') ?? 0);
      const limit = Math.min(Number(q.get('limit') ?? 30), 100);
      const page = list.slice(start, start + limit);
      const next = start + limit < list.length ? String(start + limit) : undefined;
      return send(res, 200, {
        servers: page.map(wrap),
        metadata: { count: page.length, ...(next ? { nextCursor: next } : {}) },
      });
    }
    const name = parts[2];
    const versions = docs.filter((d) => d.name === name);
    if (!versions.length) return send(res, 404, { error: 'Server not found' });
    if (parts.length === 4 && parts[3] === 'versions')
      return send(res, 200, { servers: [...versions].reverse().map(wrap), metadata: { count: versions.length } });
    if (parts.length === 5 && parts[3] === 'versions') {
      const doc = parts[4] === 'latest' ? latest.get(name) : versions.find((d) => d.version === parts[4]);
      return doc ? send(res, 200, wrap(doc)) : send(res, 404, { error: 'Server version not found' });
    }
    return send(res, 404, { error: 'Not found' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
}
