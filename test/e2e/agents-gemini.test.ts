// End-to-end: the gemini provider in the built server, started as the `switchboard` command (from the V8 startup
// snapshot, which loads @google/genai at run time) and through bin/switchboard.js (the ESM bundle), driven by the
// official SDK client against the fake Gemini API on loopback.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, tempProject } from '../helpers/cli.ts';
import { type FakeGemini, startFakeGemini } from '../helpers/fake-gemini.ts';

const apis: FakeGemini[] = [];
afterAll(async () => {
  for (const api of apis) await api.close();
});

const launches = [
  { what: 'the switchboard command (startup snapshot)', command: BIN, prefix: [] },
  { what: 'bin/switchboard.js (ESM bundle)', command: process.execPath, prefix: [BIN] },
];

describe('gemini provider in the built server', () => {
  for (const launch of launches)
    it(`runs a turn with a tool call through ${launch.what}`, async () => {
      const api = await startFakeGemini({
        replies: [{ function_calls: [{ id: 'fc_1', name: 'system__health', args: {} }] }, 'All healthy.'],
      });
      apis.push(api);
      const dir = tempProject();
      mkdirSync(join(dir, '.switchboard'));
      writeFileSync(join(dir, '.switchboard/config.toml'), '[agents]\ndefault_provider = "gemini"\n');
      const client = new Client({ name: 'gemini-e2e', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: launch.command,
          args: [...launch.prefix, '--cwd', dir, 'serve'],
          env: childEnv(dir, { GEMINI_API_KEY: 'e2e-key', GOOGLE_GEMINI_BASE_URL: api.url }),
        }),
      );
      try {
        const result = await client.callTool({
          name: 'agent__start',
          arguments: { session_name: 'g', prompt: 'how are you?', enable_builtins: true },
        });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ status: 'completed', content: 'All healthy.', tool_calls: 1 });
        const [first, second] = api.generations();
        expect(first.headers['x-goog-api-key']).toBe('e2e-key');
        expect(JSON.stringify(second.body.contents.at(-1))).toContain('"name":"system__health"');
      } finally {
        await client.close();
      }
    });
});
