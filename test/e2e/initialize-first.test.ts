// End-to-end: `serve` over stdio answers `initialize` before its hub has started (issue 17), started as
// `node bin/switchboard.js` and as the `switchboard` command (startup snapshot). The hub's start is held by a real
// handler module whose top level reads a FIFO: nothing can finish the start until the test writes to it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO } from '../../src/serve/server-identity.ts';
import { answersById, BIN, childEnv, INITIALIZE_2025, runCli, tempProject } from '../helpers/cli.ts';

const launches = [
  { label: 'node bin/switchboard.js', command: process.execPath, prefix: [BIN] },
  { label: 'the switchboard command', command: BIN, prefix: [] },
] as const;

/** A project whose handler module `gate.mjs` holds the hub's start until something is written to `gate.fifo`. */
function gatedProject(): { dir: string; fifo: string } {
  const dir = tempProject();
  const fifo = join(dir, 'gate.fifo');
  execFileSync('mkfifo', [fifo]);
  mkdirSync(join(dir, '.switchboard/handlers'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard/handlers/gate.mjs'),
    `import { readFile } from 'node:fs/promises';
     import { defineCapability, z } from 'switchboard';
     // Opening a FIFO for reading waits for a writer: the hub's start stops here until the test opens the gate.
     await readFile(${JSON.stringify(fifo)});
     const words = [];
     export const note = defineCapability({
       name: 'gate.note',
       description: 'Remember a word; answer every word remembered so far, in order.',
       input: z.object({ word: z.string() }),
       output: z.object({ words: z.array(z.string()) }),
       handle: ({ word }) => {
         words.push(word);
         return { words: [...words] };
       },
     });
     export const log = defineCapability({
       name: 'gate.log',
       description: 'Log the text at info, then at error.',
       input: z.object({ text: z.string() }),
       handle: async ({ text }, ctx) => {
         await ctx.log('info', 'info: ' + text);
         await ctx.log('error', 'error: ' + text);
         return {};
       },
     });`,
  );
  return { dir, fifo };
}

const wordsOf = (result: unknown) => (result as { structuredContent: { words: string[] } }).structuredContent.words;

for (const launch of launches) {
  describe(`initialize before the hub, started as ${launch.label}`, () => {
    it('answers initialize while the hub is held; later requests wait, in order, and cancelled ones never run', async () => {
      const { dir, fifo } = gatedProject();
      const transport = new StdioClientTransport({
        command: launch.command,
        args: [...launch.prefix, '--cwd', dir, 'serve'],
        env: childEnv(dir),
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (d) => {
        stderr += d;
      });
      const client = new Client({ name: 'e2e', version: '1.0.0' });
      const logs: string[] = [];
      client.setNotificationHandler('notifications/message', async (n) => {
        logs.push(String(n.params.data));
      });
      try {
        // The gate is shut: the hub cannot have finished starting, yet the handshake completes.
        await client.connect(transport);
        expect(client.getServerVersion()).toEqual(SERVER_INFO);
        expect(client.getServerCapabilities()).toEqual(SERVER_CAPABILITIES);
        expect(client.getInstructions()).toBe(INSTRUCTIONS);
        // Answered by the SDK before the hub; it still applies to the calls served once the hub is up.
        await client.setLoggingLevel('error');

        const settled: string[] = [];
        const track = <T>(name: string, p: Promise<T>) => p.finally(() => settled.push(name));
        const list = track('tools/list', client.listTools());
        const first = track('first', client.callTool({ name: 'gate__note', arguments: { word: 'first' } }));
        const abort = new AbortController();
        const cancelled = client.callTool(
          { name: 'gate__note', arguments: { word: 'cancelled' } },
          { signal: abort.signal },
        );
        const second = track('second', client.callTool({ name: 'gate__note', arguments: { word: 'second' } }));
        abort.abort('the test cancels a request that waits for the hub');
        await expect(cancelled).rejects.toThrow();
        // The server reads and answers what needs no hub (ping) while the others wait: a round trip behind them.
        await client.ping();
        expect(settled).toEqual([]);

        await writeFile(fifo, 'open'); // open the gate: the module finishes, the hub starts
        const { tools } = await list;
        expect(tools.map((t) => t.name)).toEqual(
          expect.arrayContaining(['gate__note', 'task__create', 'system__health']),
        );
        // Queued calls ran in the order they came; the cancelled one never ran.
        expect(wordsOf(await first)).toEqual(['first']);
        expect(wordsOf(await second)).toEqual(['first', 'second']);
        // Once the hub is there, calls go straight through.
        expect(wordsOf(await client.callTool({ name: 'gate__note', arguments: { word: 'third' } }))).toEqual([
          'first',
          'second',
          'third',
        ]);
        await client.callTool({ name: 'gate__log', arguments: { text: 'after' } });
        expect(logs).toEqual(['error: after']);
        expect(stderr).not.toMatch(/error/i);
      } finally {
        await client.close();
      }
    });

    const failures = [
      {
        what: 'a configuration error',
        setup: (dir: string) => {
          mkdirSync(join(dir, '.switchboard'));
          writeFileSync(join(dir, '.switchboard/config.toml'), '[server]\nprot = 7777\n');
        },
        reason: /prot/,
        exitCode: 2,
      },
      {
        what: 'a store that cannot be opened',
        setup: (dir: string) => {
          writeFileSync(join(dir, 'not-a-folder'), '');
          mkdirSync(join(dir, '.switchboard'));
          writeFileSync(join(dir, '.switchboard/config.toml'), '[store]\npath = "not-a-folder/state.db"\n');
        },
        reason: /not-a-folder/,
        exitCode: 1,
      },
    ];
    for (const failure of failures)
      it(`answers requests that waited for a hub that failed to start (${failure.what}) until the client leaves, then exits non-zero`, async () => {
        const dir = tempProject();
        failure.setup(dir);
        // Sent at once, as one write: the requests behind the handshake are waiting when the hub's start fails.
        const messages = [
          INITIALIZE_2025,
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
          { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'task__list', arguments: {} } },
        ];
        const { code, stdout, stderr } = await runCli(dir, ['serve'], {
          launch: [launch.command, ...launch.prefix],
          input: messages.map((m) => `${JSON.stringify(m)}\n`).join(''),
          keepStdinOpen: true,
          // The process keeps answering until its client leaves (issue 29): leave once both are answered.
          endStdinWhen: (out) => out.endsWith('\n') && [2, 3].every((id) => answersById(out).has(id)),
        });
        expect(code).toBe(failure.exitCode);

        const answers = answersById(stdout);
        expect(answers.get(1)?.result?.serverInfo).toEqual(SERVER_INFO);
        for (const id of [2, 3]) {
          const { error } = answers.get(id) ?? {};
          expect(error?.code).toBe(-32603);
          expect(error?.message).toMatch(/^Switchboard could not start, so it cannot answer this request: /);
          expect(error?.message).toMatch(failure.reason);
        }
        expect(stderr).toMatch(/switchboard:/);
        expect(stderr).toMatch(failure.reason);
      });
  });
}
