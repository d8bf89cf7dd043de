// Loads user modules (handler modules, compiled scripts) at run time: TypeScript through tsx, and
// `import 'switchboard-mcp'` (or the older bare name `switchboard`) resolved to the running Switchboard wherever
// the module lives.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The package's name on the registry (package.json `name`). */
export const PACKAGE_NAME = 'switchboard-mcp';

/**
 * The specifiers a user module may import Switchboard by: the package name, and `switchboard`, the name modules
 * were written with before the package was published under its own (docs/decisions.md, "Adoptable (issue 17)").
 */
const SELF_SPECIFIERS = [PACKAGE_NAME, 'switchboard'];

/** File endings a user module may have. */
export const MODULE_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

/** The built entry of the running Switchboard (`dist/index.js`), found from this file's location. */
let ownEntryCache: string | undefined | null = null;

function ownEntry(): string | undefined {
  if (ownEntryCache === null) ownEntryCache = findOwnEntry();
  return ownEntryCache;
}

function findOwnEntry(): string | undefined {
  const root = packageRoot();
  if (!root) return undefined;
  const entry = join(root, 'dist', 'index.js');
  return existsSync(entry) ? pathToFileURL(entry).href : undefined;
}

let rootCache: string | undefined | null = null;

/** The folder of the running Switchboard package (holding its package.json), found from this file's location. */
export function packageRoot(): string | undefined {
  if (rootCache !== null) return rootCache;
  rootCache = undefined;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if (JSON.parse(readFileSync(pkg, 'utf8')).name === PACKAGE_NAME) {
          rootCache = dir;
          break;
        }
      } catch {
        // Not our package.json; keep walking up.
      }
    }
    dir = dirname(dir);
  }
  return rootCache;
}

let hookInstalled = false;

/** The query mark of a module loaded again (`importModule`'s `reload`), carried by the hook to the files it imports. */
const RELOAD_PARAM = 'switchboard-reload';

/**
 * Make `import ... from 'switchboard-mcp'` (or `'switchboard'`) in handler modules resolve to the running Switchboard, wherever the
 * module lives: a project needs no local install, and modules share the hub's Zod and error classes.
 * TypeScript files outside node_modules load as ES modules even in a project without `"type": "module"`
 * (tsx would otherwise compile them to CommonJS, whose `require` no ESM hook can redirect on Node 20).
 * A module loaded again (`?switchboard-reload=N`) passes its mark on to the project files it imports, so they are read
 * again too (a module's URL is what the loader caches it by); packages in node_modules are kept.
 */
function installSelfResolve(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  const entry = ownEntry();
  if (!entry) return;
  const hook = `export async function resolve(specifier, context, next) {
    if (${JSON.stringify(SELF_SPECIFIERS)}.includes(specifier)) return { url: ${JSON.stringify(entry)}, shortCircuit: true };
    const r = await next(specifier, context);
    if (!r.url.startsWith('file:') || r.url.includes('/node_modules/')) return r;
    const reload = /[?&]${RELOAD_PARAM}=([^&#]+)/.exec(context.parentURL ?? '');
    const url = reload && !r.url.includes('${RELOAD_PARAM}=') ? r.url + (r.url.includes('?') ? '&' : '?') + '${RELOAD_PARAM}=' + reload[1] : r.url;
    if (/\\.m?ts(\\?|$)/.test(url)) return { ...r, url, format: 'module' };
    return { ...r, url };
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}

/**
 * Whether a module needs the resolve hook: TypeScript always does (format), JavaScript only when it names one of
 * the specifiers Switchboard is imported by and that name would not resolve to the running copy from where the file
 * lives. Skipping it saves starting the loader-hook thread, about 250 ms of CPU in a cold start (BENCHMARKS.md): the
 * old name `switchboard` resolves nowhere, so asking about it alone started the thread for every JS handler.
 */
function needsHook(file: string): boolean {
  if (file.endsWith('.ts') || file.endsWith('.mts')) return true;
  const entry = ownEntry();
  if (!entry) return false;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false; // Unreadable: the import below says why.
  }
  const require = createRequire(file);
  return SELF_SPECIFIERS.some((specifier) => {
    if (!text.includes(`'${specifier}'`) && !text.includes(`"${specifier}"`)) return false;
    try {
      return pathToFileURL(require.resolve(specifier)).href !== entry;
    } catch {
      return true;
    }
  });
}

/**
 * Import one module; TypeScript goes through tsx's loader (loaded only when a .ts file is present). `version`: a
 * changed file's mtime, to read that file afresh; `reload`: a mark new to this process, to read the module and the
 * project files it imports afresh (the resolve hook carries it).
 */
export async function importModule(
  file: string,
  opts: { version?: string; reload?: string } = {},
): Promise<Record<string, unknown>> {
  if (opts.reload !== undefined || needsHook(file)) installSelfResolve();
  // A version in the URL makes the module loader read a changed file again instead of its cached copy.
  const query = [
    ...(opts.version ? [`v=${encodeURIComponent(opts.version)}`] : []),
    ...(opts.reload !== undefined ? [`${RELOAD_PARAM}=${encodeURIComponent(opts.reload)}`] : []),
  ];
  const url = pathToFileURL(file).href + (query.length ? `?${query.join('&')}` : '');
  if (file.endsWith('.ts') || file.endsWith('.mts')) {
    const { tsImport } = (await importAtRunTime('tsx/esm/api')) as typeof import('tsx/esm/api');
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
  return (await importAtRunTime(url)) as Record<string, unknown>;
}

/**
 * `import()` of a module outside the bundle (a user module, tsx). A process started from the startup snapshot
 * (src/snapshot.ts) provides its own: code deserialised from a snapshot has no module loader attached to its
 * `import()` on Node 20. Bare specifiers resolve from Switchboard's own folder either way.
 */
function importAtRunTime(specifier: string): Promise<unknown> {
  const fromSnapshot = (globalThis as Record<symbol, unknown>)[Symbol.for('switchboard.import')];
  return typeof fromSnapshot === 'function' ? fromSnapshot(specifier) : import(specifier);
}
