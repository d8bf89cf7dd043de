// The dashboard's files (dist/ui, built by scripts/build-ui.mjs): index.html for every page under /ui (the app routes
// in the browser), hashed assets cached for a year, and the brotli or gzip copy the build wrote when the browser
// takes one. Read once into memory: a handful of small files.
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * What the page may load: only this server's own files and API, nothing inline that could be injected; it may also
 * fetch from `connect` (the OAuth issuer's origin, for the token request of the dashboard's sign-in).
 */
const contentSecurityPolicy = (connect: string[]) =>
  `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src ${["'self'", ...connect].join(' ')}; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

interface UiFile {
  type: string;
  plain: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

/** dist/ui beside the bundle (dist/*.js, the snapshot), or the built one from the sources (src/serve/dashboard). */
function uiDir(): string | undefined {
  for (const rel of ['./ui/', '../../../dist/ui/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return undefined;
}

export class UiFiles {
  private readonly cache = new Map<string, UiFile>();
  private readonly dir = uiDir();

  /** `connect`: the other origins the page may fetch from, asked on each response (the OAuth resource is set at listen). */
  constructor(private readonly connect: () => string[] = () => []) {}

  /** Whether the dashboard was built (npm run build); without it /ui says how to build it. */
  get available(): boolean {
    return this.dir !== undefined;
  }

  /** `name` in dist/ui or, with `asset`, in dist/ui/assets. */
  private load(name: string, asset: boolean): UiFile | undefined {
    const path = `${this.dir}${asset ? 'assets/' : ''}${name}`;
    const cached = this.cache.get(path);
    if (cached) return cached;
    let file: UiFile | undefined;
    const ext = /\.[a-z]+$/.exec(name)?.[0] ?? '';
    // Only the names the build writes: no path segments, so nothing outside dist/ui can be named.
    if (this.dir && TYPES[ext] && /^[\w.-]+$/.test(name) && existsSync(path)) {
      const read = (suffix: string) => (existsSync(path + suffix) ? readFileSync(path + suffix) : undefined);
      file = { type: TYPES[ext], plain: readFileSync(path), gzip: read('.gz'), br: read('.br') };
    }
    // Unknown names are not remembered: a scan of made-up names must not grow the cache.
    if (file) this.cache.set(path, file);
    return file;
  }

  /** Whether `path` names an asset (/ui/assets/NAME) rather than the page. */
  static isAsset(path: string): boolean {
    return path.startsWith('/ui/assets/');
  }

  /**
   * Answer GET /ui, /ui/… (the page: the app routes in the browser) and /ui/assets/NAME. `state`: an element to put
   * in the page (src/serve/dashboard/initial-state.ts); one that holds a caller's data is never stored by a cache.
   */
  serve(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    state?: { element: string; holdsData: boolean },
  ): true {
    const asset = /^\/ui\/assets\/([^/]+)$/.exec(path);
    const accepts = String(req.headers['accept-encoding'] ?? '');
    const loaded = asset ? this.load(asset[1], true) : this.load('index.html', false);
    const file = loaded && state ? withState(loaded, state.element, accepts) : loaded;
    if (!file && asset) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`No dashboard file ${asset[1].slice(0, 100)}: the page names its assets, reload it.\n`);
      return true;
    }
    if (!file) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('The dashboard is not built: run npm run build (it writes dist/ui).\n');
      return true;
    }
    const [body, encoding] =
      file.br && /\bbr\b/.test(accepts)
        ? [file.br, 'br']
        : file.gzip && /\bgzip\b/.test(accepts)
          ? [file.gzip, 'gzip']
          : [file.plain, undefined];
    res.writeHead(200, {
      'content-type': file.type,
      'content-length': String(body.length),
      // Hashed names never change content; the page itself is checked on every load so a new build shows at once.
      'cache-control': asset ? 'public, max-age=31536000, immutable' : state?.holdsData ? 'no-store' : 'no-cache',
      vary: 'accept-encoding',
      ...(encoding ? { 'content-encoding': encoding } : {}),
      'content-security-policy': contentSecurityPolicy(this.connect()),
      ...SECURITY_HEADERS,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  }
}

/**
 * The page with `element` in its head, compressed here as the browser takes it: it is made for each request, so no
 * copy was written at build time (its data, mostly the call series, shrinks tenfold or more). Brotli at a quality
 * that costs about what gzip does.
 */
function withState(page: UiFile, element: string, accepts: string): UiFile {
  const plain = Buffer.from(page.plain.toString().replace('</head>', `${element}\n</head>`));
  if (/\bbr\b/.test(accepts))
    return {
      type: page.type,
      plain,
      br: brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
    };
  return { type: page.type, plain, ...(/\bgzip\b/.test(accepts) ? { gzip: gzipSync(plain) } : {}) };
}
