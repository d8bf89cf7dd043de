// End-to-end: a capability declared `interactive` that asks through inputRequired, over stdio with the official SDK
// client in both eras. Each round runs the handler body once (the fast branch never runs it first), and one that
// asks without the declaration fails INTERNAL after running once.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, ROOT, tempProject } from '../helpers/cli.ts';

const HANDLERS = `${ROOT}/test/fixtures/interactive`;

const eras = [
  { label: '2025-11-25', options: {} },
  { label: '2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
] as const;

const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;

for (const era of eras)
  describe(`an interactive capability over stdio, as a ${era.label} client`, () => {
    let client: Client;
    const runs = async () => (await client.callTool({ name: 'ask__runs', arguments: {} })).structuredContent;

    beforeAll(async () => {
      const dir = tempProject();
      client = new Client({ name: 'e2e', version: '1.0.0' }, {
        capabilities: { elicitation: {} },
        ...era.options,
      } as any);
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }));
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, '--cwd', dir, 'serve', '--handlers', HANDLERS],
          env: childEnv(dir),
          stderr: 'pipe',
        }),
      );
    });
    afterAll(async () => {
      await client?.close();
    });

    it('gets its answer, running the body once per round: asking, then answering', async () => {
      expect(text(await client.callTool({ name: 'ask__greet', arguments: {} }))).toBe('Hello, Ada!');
      expect(await runs()).toEqual({ greet: 2, undeclared: 0 });
      expect(text(await client.callTool({ name: 'ask__greet', arguments: {} }))).toBe('Hello, Ada!');
      expect(await runs()).toEqual({ greet: 4, undeclared: 0 });
    });

    it('fails a capability that asks without declaring interactive, having run it once', async () => {
      const result = await client.callTool({ name: 'ask__undeclared', arguments: {} });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('not declared interactive');
      expect(result._meta).toMatchObject({ 'switchboard/error': { code: 'INTERNAL' } });
      expect(await runs()).toEqual({ greet: 4, undeclared: 1 });
    });
  });
