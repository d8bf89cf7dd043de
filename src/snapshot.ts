// Entry of the V8 startup snapshot (bundled as dist/snapshot.cjs; the blob is built from it into the user's cache:
// src/cli/snapshot-cache.ts; docs/decisions.md, "Startup snapshot"). While the snapshot is built, the modules `serve`
// needs are evaluated once, so a start from the blob skips reading, compiling and running them. On a start, the
// deserialised main function below runs the CLI as bin/switchboard.js would. The launcher in bin/switchboard.js starts
// it as `node --snapshot-blob <the cached blob> <dist folder> <arguments…>`.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { deserializeMessage, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { loadConfig } from './config/load.ts';
import { DEFAULT_MAX_MESSAGE_BYTES } from './config/schema.ts';
import { Registry } from './core/registry.ts';
import * as api from './index.ts';
import { redactedJson } from './observe/redact.ts';
import { SERVER_CAPABILITIES, SERVER_INFO } from './serve/server-identity.ts';
import { BatchingStdioTransport } from './serve/stdio-transport.ts';
import { toolsToWarm } from './snapshot-tools.ts';
import { SOURCES } from './sources/index.ts';

/** Where handler modules find the running Switchboard (read by dist/index.js, the package entry). */
const API_KEY = Symbol.for('switchboard.api');
/** How the module loader imports user modules in a process started from the snapshot. */
const IMPORT_KEY = Symbol.for('switchboard.import');

/** Point the bundle's `import.meta` stand-ins (scripts/build.mjs) at the dist folder this process runs from. */
function locate(dist: string): void {
  const g = globalThis as Record<string, unknown>;
  g.__switchboardMetaUrl = pathToFileURL(join(dist, 'index.js')).href;
  g.__switchboardMetaDirname = dist;
}

/**
 * `import()` for user modules. Code deserialised from a snapshot has no module loader attached on Node 20
 * (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING); a function compiled with the main context's default loader does.
 */
function moduleImporter(dist: string): (specifier: string) => Promise<Record<string, unknown>> {
  // The option is marked experimental on Node 20, and Node says so on stderr with the first import; that notice
  // (and only it) is not worth a line in every server log.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  // Named as a file in dist/, so bare specifiers (tsx) resolve from Switchboard's own node_modules.
  return new vm.Script('(specifier) => import(specifier)', {
    filename: join(dist, 'snapshot.cjs'),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  }).runInThisContext();
}

/** The first messages of a session, parsed once while building so their schemas are compiled in the snapshot. */
const FIRST_MESSAGES = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'warm-up', version: '1' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'task__list', arguments: {} } },
];

/**
 * Evaluate what `serve` loads before its first answer (the CLI, the hub, the stdio face, the sources) and build
 * what the CLI, the SDK and Zod otherwise build on first use (the parser, the protocol schemas, compiled parsers).
 */
async function preload(): Promise<void> {
  // Run the CLI's and the config's first-use code once, so what they compile is in the snapshot. Their results
  // are thrown away: the program's defaults read the working directory, the config reads files of this machine
  // (here none: a folder that does not exist).
  (await import('./cli/main.ts')).buildProgram();
  const nowhere = join(__dirname, 'no-such-project');
  loadConfig(nowhere, { SWITCHBOARD_HOME: nowhere });
  await import('./cli/serve.ts');
  await import('./serve/mcp-stdio.ts');
  for (const load of SOURCES) await load();
  // Not `preloadSchemas()`: the 2026 wire schemas it builds (1,776 Zod schemas, a third of the blob's) serve only
  // 2026-07-28 HTTP clients, once per process; deserialising them cost every stdio start ~4 ms (docs/decisions.md,
  // "Cold start: what the snapshot holds").
  for (const message of FIRST_MESSAGES) deserializeMessage(JSON.stringify(message));
  // Registering converts the built-in tools' schemas to JSON Schema; the registry keeps the conversions per process.
  const registry = new Registry();
  for (const capability of await toolsToWarm()) registry.add(capability);
  // The audit record of the first call redacts its input.
  redactedJson({ text: 'warm-up', api_key: 'warm-up' });
  await warmSession();
}

/**
 * Run one stdio session in memory: the SDK's session code (`serveStdio`, the protocol layer, the server) and the
 * schemas it checks a handshake, a tool list and a tool call with are compiled while building, not on a client's
 * first messages. The server has Switchboard's capabilities and a stand-in tool; the stdio transport is Switchboard's
 * own, on in-memory streams.
 */
async function warmSession(): Promise<void> {
  const input = new PassThrough();
  const output = new PassThrough();
  output.setEncoding('utf8');
  let written = '';
  output.on('data', (chunk: string) => {
    written += chunk;
  });
  const handle = serveStdio(
    () => {
      const server = new Server(SERVER_INFO, { capabilities: SERVER_CAPABILITIES });
      server.setRequestHandler('tools/list', async () => ({ tools: [] }));
      server.setRequestHandler('tools/call', async () => ({
        content: [{ type: 'text', text: '{}' }],
        structuredContent: {},
      }));
      return server;
    },
    { transport: new BatchingStdioTransport(DEFAULT_MAX_MESSAGE_BYTES, input, output) },
  );
  for (const message of FIRST_MESSAGES) input.write(`${JSON.stringify(message)}\n`);
  for (let turn = 0; turn < 100 && !written.includes('"id":3'); turn++) await new Promise((r) => setImmediate(r));
  if (!written.includes('"id":3')) throw new Error(`snapshot warm-up session did not answer: ${written.slice(0, 500)}`);
  await handle.close();
}

if (v8.startupSnapshot.isBuildingSnapshot()) {
  locate(__dirname);
  // Packages that read the environment or load native code when evaluated are left to run time (scripts/build.mjs
  // defers them), so nothing evaluated here depends on the machine state at build time.
  void preload();
  v8.startupSnapshot.setDeserializeMainFunction(() => {
    // argv: [node, <dist folder>, …arguments]; the CLI expects [node, <script>, …arguments].
    const dist = process.argv[1];
    process.argv.splice(1, 1, join(dist, '..', 'bin', 'switchboard.js'));
    locate(dist);
    // From here on the bundle's `require` (and the deferred packages) resolve from the package's node_modules.
    (globalThis as Record<string, unknown>).__switchboardRequire = createRequire(join(dist, 'snapshot.cjs'));
    const g = globalThis as Record<symbol, unknown>;
    g[API_KEY] = api;
    g[IMPORT_KEY] = moduleImporter(dist);
    void api.main(process.argv);
  });
}
