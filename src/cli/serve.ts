// `switchboard serve`: MCP over stdio by default, or Streamable HTTP + REST with --http.
import { existsSync } from 'node:fs';
import type { HubOptions } from '../hub.ts';
import { createLogger } from '../observe/logger.ts';
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
      logger,
      ...stdioProfile(opts.profile, process.env),
    });
    const stop = async () => {
      await stdio.close().catch(() => {});
      process.exit(0);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // Rejects when the hub failed to start (every waiting request has had its answer): main reports it on stderr
    // and exits non-zero.
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
    throw err;
  }
  const stop = async () => {
    await http.close().catch(() => {});
    await hub.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  printBanner(hub.cwd, http.url, hub.services.registry.size, hub.services.registry.listResources().length);
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

function printBanner(cwd: string, base: string, tools: number, resources: number): void {
  const mcp = `${base}/mcp`;
  const lines = [
    `${colour().bold('Switchboard')} ${version} — serving ${cwd}`,
    `  ${tools} tools, ${resources} resources`,
    '',
    `  Dashboard              ${colour().cyan(`${base}/ui`)}`,
    `  MCP (Streamable HTTP)  ${colour().cyan(mcp)}`,
    `  REST                   ${base}/v1/tools   (OpenAPI: ${base}/v1/openapi.json)`,
    `  Live events (SSE)      ${base}/v1/events  (or: npx -y switchboard-mcp events tail --url ${base})`,
    `  Health                 ${base}/healthz  ${base}/readyz`,
    '',
    colour().bold('Connect a coding agent:'),
    `  Claude Code (HTTP)   claude mcp add --transport http switchboard ${mcp}`,
    '  Claude Code (stdio)  claude mcp add switchboard -- npx -y switchboard-mcp serve',
    `  Codex (HTTP)         codex mcp add switchboard --url ${mcp}`,
    '  Codex (stdio)        codex mcp add switchboard -- npx -y switchboard-mcp serve',
    `  MCP Inspector        npx @modelcontextprotocol/inspector  (transport: Streamable HTTP, URL: ${mcp})`,
    `  MCP Inspector (CLI)  npx @modelcontextprotocol/inspector --cli ${mcp} --transport http --method tools/list`,
    '',
    'Press Ctrl+C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
