// End-to-end: a remote caller never learns where the project lives. Calls that fail with a message naming a
// project file (an agent source, a user handler, a prompt) answer with project-relative paths over REST and MCP.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServerProcess, startHttpServer, tempProject } from '../helpers/cli.ts';

// A user handler and a prompt whose errors name a file of the project by its absolute path (as fs errors do).
const HANDLER = `
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineCapability, definePrompt, z } from 'switchboard';

export const readNotes = defineCapability({
  name: 'paths.read_notes',
  description: 'Reads notes.txt from the project (it does not exist).',
  input: z.object({}),
  handle: (_input, ctx) => readFileSync(join(ctx.services.projectDir, 'notes.txt'), 'utf8'),
});

export const notesPrompt = definePrompt({
  name: 'paths_notes',
  description: 'Renders notes.txt from the project (it does not exist).',
  get: (_args, ctx) => {
    throw new Error('Cannot render ' + join(ctx.services.projectDir, 'notes.txt') + ': no such file');
  },
});
`;

let server: HttpServerProcess;
let dir: string;
let client: Client;
let transport: StreamableHTTPClientTransport;

beforeAll(async () => {
  dir = realpathSync(tempProject());
  mkdirSync(join(dir, '.switchboard/handlers'), { recursive: true });
  writeFileSync(join(dir, '.switchboard/handlers/paths.ts'), HANDLER);
  server = await startHttpServer(dir);
  client = new Client({ name: 'paths', version: '1.0.0' });
  transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
  await client.connect(transport);
});
afterAll(async () => {
  await transport?.terminateSession().catch(() => {});
  await client?.close();
  await server?.stop();
});

const rest = async (tool: string, body: unknown) => {
  const res = await fetch(`${server.url}/v1/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
};
const mcpText = async (tool: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name: tool, arguments: args });
  expect(result.isError).toBe(true);
  return (result.content as { text: string }[])[0].text;
};

describe('paths in answers to callers', () => {
  it('an unknown agent names .switchboard/agents relative to the project, over REST and MCP', async () => {
    const input = { agent_name: 'ghost', prompt: 'hi', session_name: 's1' };
    const answer = await rest('agent__start', input);
    expect(answer.status).toBe(404);
    expect(answer.text).toContain("No agent 'ghost' in .switchboard/agents");
    expect(answer.text).not.toContain(dir);
    const text = await mcpText('agent__start', input);
    expect(text).toContain("No agent 'ghost' in .switchboard/agents");
    expect(text).not.toContain(dir);
  });

  it("a user handler's fs error names the file relative to the project, over REST and MCP", async () => {
    const answer = await rest('paths__read_notes', {});
    expect(answer.status).toBe(500);
    expect(answer.text).toContain("open 'notes.txt'");
    expect(answer.text).not.toContain(dir);
    const text = await mcpText('paths__read_notes', {});
    expect(text).toContain("open 'notes.txt'");
    expect(text).not.toContain(dir);
  });

  it("a prompt's error names the file relative to the project", async () => {
    const failed = await client.getPrompt({ name: 'paths_notes' }).then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(failed).toContain('Cannot render notes.txt: no such file');
    expect(failed).not.toContain(dir);
  });
});
