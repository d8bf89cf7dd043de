// `switchboard serve`: MCP over stdio by default, or Streamable HTTP + REST with --http.
import { existsSync } from 'node:fs';
import { commandLine } from '../config/agent-launch.ts';
import type { LiveConfig } from '../config/live.ts';
import { listedTools } from '../core/catalog/exposure.ts';
import type { HubOptions } from '../hub.ts';
import { createLogger } from '../observe/logger.ts';
import { CALLER_LIMIT_ENV, type CallerLimit, readCallerLimit } from '../policy/caller-limit.ts';
import { makePrincipal } from '../policy/principal.ts';
import { version } from '../version.ts';
import { CliError, colour } from './output.ts';

export interface ServeOptions {
  cwd: string;
  http?: boolean;
  host?: string;
  port?: string;
  handlers?: string[];
  only?: string[];
  except?: string[];
  /** A Redis URL: share state with other instances (docs/scale-out.md). */
  store?: string;
  /** `[profiles.NAME]` the stdio connection runs under (default: $SWITCHBOARD_PROFILE). */
  profile?: string;
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new CliError(`--port must be an integer from 0 to 65535, got '${value}'.`, 2);
  return n;
}

export async function serve(opts: ServeOptions): Promise<void> {
  const port = parsePort(opts.port);
  for (const dir of opts.handlers ?? []) {
    if (!existsSync(dir)) throw new CliError(`--handlers ${dir}: no such folder.`, 2);
  }
  if (opts.store !== undefined && !/^rediss?:\/\/\S+$/.test(opts.store))
    throw new CliError(
      `--store must be a Redis URL such as redis://127.0.0.1:6379, got '${opts.store}'. Without --store the SQLite file of [store] path is used.`,
      2,
    );
  if (opts.http && opts.profile !== undefined)
    throw new CliError(
      '--profile selects the profile of a stdio server. Over HTTP each client selects its own: the URL /mcp/NAME, the Switchboard-Profile header, or a token made with `switchboard token create NAME --profile PROFILE`.',
      2,
    );
  const exposure = opts.only || opts.except ? { allow: opts.only ?? [], deny: opts.except ?? [] } : undefined;
  const callerLimit = callerLimitOf(process.env, opts.http);
  const logger = createLogger();
  // Broken handler modules are reported by the hub's logger on stderr; serving goes on without them.
  const hubOptions: HubOptions = {
    cwd: opts.cwd,
    logger,
    handlerPaths: opts.handlers,
    watchConfig: true,
    announce: true,
    storeUrl: opts.store,
  };
  if (!opts.http) {
    // The handshake is answered before the hub starts (an agent gives its servers a few seconds to connect): the
    // hub's modules are loaded, and the hub built, once that answer is out (docs/decisions.md).
    const { serveMcpStdio } = await import('../serve/mcp-stdio.ts');
    const stdio = serveMcpStdio(async () => (await import('../hub.ts')).createHub(hubOptions), {
      exposure,
      callerLimit,
      logger,
      ...stdioProfile(opts.profile, process.env),
    });
    const stop = async () => {
      await stdio.close().catch(() => {});
      process.exit(0);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (process.stdin.isTTY) {
      // Typed at a terminal: no client is there to answer first or to tell of a failure, so the hub starts now and a
      // failure ends the command (main prints it); once it serves, stderr says what this is waiting for.
      await stdio.start();
      process.stderr.write(`${waitingForClient(opts.cwd)}\n`);
    }
    // Rejects once the client closes stdin when the hub failed to start (every request has had that failure for its
    // answer): main reports it on stderr and exits non-zero.
    await stdio.closed;
    await stop();
    return;
  }
  // Over HTTP the port is bound once the hub is up: /readyz and the banner report a started hub.
  const { createHub } = await import('../hub.ts');
  const hub = await createHub(hubOptions);
  const { serveHttp } = await import('../serve/http.ts');
  let http: Awaited<ReturnType<typeof serveHttp>>;
  try {
    http = await serveHttp(hub, { host: opts.host, port, exposure });
  } catch (err) {
    await hub.close();
    throw listenError(err, hub.config) ?? err;
  }
  recordAddress(hub.config, opts, http.port);
  const stop = async () => {
    await http.close().catch(() => {});
    await hub.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // The counts a client on this machine lists (an anonymous loopback caller: `[expose]`, --only/--except and the
  // catalog's exposure applied), not the registry's size.
  const config = hub.services.config.get();
  const local = makePrincipal(config, exposure, { id: 'anonymous', roles: ['*'], kind: 'anonymous' });
  const tools = listedTools(hub.services.registry, config, local).length;
  printBanner(hub.cwd, http.url, tools, hub.services.registry.listResources(local).length);
}

/**
 * `system.config get` shows the address in effect: the port bound (`--port 0`, `[server] port = 0`: the one the
 * system chose) and `--host`, each with where it came from, where the configuration says otherwise.
 */
function recordAddress(config: LiveConfig, opts: ServeOptions, bound: number): void {
  const said = config.get().server;
  if (opts.host !== undefined && opts.host !== said.host)
    config.override('server.host', opts.host, `serve --host ${opts.host}`);
  if (bound === said.port) return;
  const from =
    opts.port !== undefined ? `serve --port ${opts.port}` : `[server] port = ${said.port}: a free port chosen at start`;
  config.override('server.port', bound, from);
}

/** A port that cannot be bound, said with the port and how to pick another; undefined for any other error. */
function listenError(err: unknown, config: LiveConfig): CliError | undefined {
  const { code, port, address } = err as { code?: string; port?: number; address?: string };
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return undefined;
  const where = `${address ?? config.get().server.host}:${port}`;
  const why =
    code === 'EADDRINUSE'
      ? `Port ${port} is already in use (${where}): another Switchboard or another program is listening there.`
      : `Port ${port} cannot be opened (${where}): ports below 1024 need privileges.`;
  return new CliError(
    `${why} Serve on another: --port N (switchboard serve --http --port ${port === 7777 ? 7778 : 7777}), --port 0 for any free port, npm start -- --port N from the repository, or [server] port in ${config.projectFile}.`,
    1,
  );
}

/**
 * The profile a stdio server runs under: `--profile`, else SWITCHBOARD_PROFILE — set by Switchboard for the
 * processes of a sub-agent whose agent.json names a profile, so a `switchboard serve` in its MCP config takes it.
 */
function stdioProfile(flag: string | undefined, env: NodeJS.ProcessEnv): { profile?: { name: string; via: string } } {
  if (flag !== undefined) return { profile: { name: flag, via: `serve --profile ${flag}` } };
  const fromEnv = env.SWITCHBOARD_PROFILE?.trim();
  return fromEnv ? { profile: { name: fromEnv, via: `SWITCHBOARD_PROFILE=${fromEnv}` } } : {};
}

/**
 * SWITCHBOARD_CALLER_LIMIT, set by Switchboard for the processes of an agent's turn: what this stdio server may serve
 * at most. A value it cannot read stops the start (usage error), never serving everything; over HTTP it is refused.
 */
function callerLimitOf(env: NodeJS.ProcessEnv, http: boolean | undefined): CallerLimit | undefined {
  let limit: CallerLimit | undefined;
  try {
    limit = readCallerLimit(env);
  } catch (err) {
    throw new CliError((err as Error).message, 2);
  }
  if (limit && http)
    throw new CliError(
      `${CALLER_LIMIT_ENV} is set (an agent's turn started this command) and limits a stdio server to what that agent's caller may call; serve --http serves many callers, each with its own token: unset it to serve HTTP.`,
      2,
    );
  return limit;
}

/** The line `serve` on a terminal prints: it waits for an MCP client, which is an agent that starts it itself. */
function waitingForClient(cwd: string): string {
  return `Switchboard (${cwd}) is waiting for an MCP client on stdin; an agent starts it itself: claude mcp add switchboard -- ${commandLine(['serve'])}. For HTTP: switchboard serve --http. Ctrl+C stops it.`;
}

function printBanner(cwd: string, base: string, tools: number, resources: number): void {
  const mcp = `${base}/mcp`;
  const lines = [
    `${colour().bold('Switchboard')} ${version} — serving ${cwd}`,
    `  ${tools} tools, ${resources} resources`,
    '',
    `  Dashboard              ${colour().cyan(`${base}/ui`)}`,
    `  MCP (Streamable HTTP)  ${colour().cyan(mcp)}`,
    `  REST                   ${base}/v1/tools   (OpenAPI: ${base}/v1/openapi.json)`,
    `  Live events (SSE)      ${base}/v1/events  (or: ${commandLine(['events', 'tail', '--url', base])})`,
    `  Health                 ${base}/healthz  ${base}/readyz`,
    '',
    colour().bold('Connect a coding agent:'),
    `  Claude Code (HTTP)   claude mcp add --transport http switchboard ${mcp}`,
    `  Claude Code (stdio)  claude mcp add switchboard -- ${commandLine(['serve'])}`,
    `  Codex (HTTP)         codex mcp add switchboard --url ${mcp}`,
    `  Codex (stdio)        codex mcp add switchboard -- ${commandLine(['serve'])}`,
    `  MCP Inspector        npx @modelcontextprotocol/inspector  (transport: Streamable HTTP, URL: ${mcp})`,
    `  MCP Inspector (CLI)  npx @modelcontextprotocol/inspector --cli ${mcp} --transport http --method tools/list`,
    '',
    'Press Ctrl+C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
