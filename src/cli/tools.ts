// `switchboard tools list|call`: in-process against the project by default, or against a server with --url.
import { createHub } from '../hub.ts';
import { createLogger } from '../observe/logger.ts';
import { toCallToolResult } from '../serve/tool-result.ts';
import { toolInput } from './input.ts';
import { CliError, printJson } from './output.ts';
import { connectRemote } from './remote.ts';
import { table as makeTable } from './table.ts';

// The local CLI runs as the user who owns the project files: all roles.
const CLI_PRINCIPAL = { id: 'cli', roles: ['*'], kind: 'cli' as const };

interface ToolRow {
  name: string;
  title?: string;
  description?: string;
}

export async function toolsList(opts: { cwd: string; json?: boolean; url?: string; token?: string }): Promise<void> {
  let tools: ToolRow[];
  if (opts.url) {
    const client = await connectRemote(opts.url, opts.token);
    tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...(page.tools as ToolRow[]));
      cursor = page.nextCursor;
    } while (cursor);
    await client.close();
  } else {
    const hub = await createHub({ cwd: opts.cwd, logger: createLogger('silent') });
    // The list is complete once every upstream server has connected (or failed).
    await hub.ready();
    tools = hub.services.registry.list(CLI_PRINCIPAL).map((e) => e.tool);
    for (const m of hub.modules) if (!m.ok) process.stderr.write(`warning: handler module ${m.file}: ${m.error}\n`);
    await hub.close();
  }
  if (opts.json) return printJson(tools);
  const table = makeTable(['tool', 'title', 'description'], { colWidths: [28, 24, 70], wordWrap: true });
  for (const t of tools) table.push([t.name, t.title ?? '', firstSentence(t.description ?? '')]);
  process.stdout.write(`${table.toString()}\n${tools.length} tools\n`);
}

export async function toolsCall(
  name: string,
  pairs: string[],
  opts: { cwd: string; input?: string; url?: string; token?: string },
): Promise<void> {
  const input = toolInput(opts.input, pairs);
  let result: Record<string, unknown>;
  if (opts.url) {
    const client = await connectRemote(opts.url, opts.token);
    try {
      result = (await client.callTool({ name, arguments: input })) as Record<string, unknown>;
    } finally {
      await client.close();
    }
  } else {
    const hub = await createHub({ cwd: opts.cwd, logger: createLogger(process.env.SWITCHBOARD_LOG_LEVEL ?? 'warn') });
    try {
      // A tool not known yet may belong to an upstream server that is still connecting.
      if (!hub.services.registry.get(name)) await hub.ready();
      result = toCallToolResult(await hub.pipeline.call({ principal: CLI_PRINCIPAL, name, input, transport: 'cli' }));
    } finally {
      await hub.close();
    }
  }
  if (result.isError) {
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
    throw new CliError(text || 'The tool failed without a message.', 1);
  }
  if (result.structuredContent !== undefined) return printJson(result.structuredContent);
  for (const c of result.content as { type: string; text?: string }[]) {
    process.stdout.write(c.type === 'text' ? `${c.text}\n` : `${JSON.stringify(c)}\n`);
  }
}

function firstSentence(text: string): string {
  const m = /^(.+?[.!?])(\s|$)/s.exec(text.trim());
  return (m ? m[1] : text).replace(/\s+/g, ' ');
}
