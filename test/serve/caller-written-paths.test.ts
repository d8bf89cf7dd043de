// Paths a caller writes come back in errors in the caller's own terms — as written, the operator's directories as
// configured, and what the hub resolved relative to the project — never as the absolute folder the project lives
// in, over REST and MCP (src/core/confine.ts, src/sources/plugins/targets.ts, src/sources/agents/grant.ts).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';

// In-process: a compiled script imports the source directly (as in test/sources/scripts/executor.test.ts).
const SRC = join(import.meta.dirname, '../../src/index.ts');

let base: string;
let hub: TestHub;
let http: HttpHandle;
let client: Client;

beforeAll(async () => {
  // <base>/app is the project; <base>/beside and <base>/shared are folders next to it, reached with `..`.
  base = realpathSync(mkdtempSync(join(tmpdir(), 'switchboard-paths-')));
  const dir = join(base, 'app');
  for (const d of ['beside', 'shared', 'app/.switchboard/scripts/nl', 'app/.switchboard/scripts/compiled', 'app/pkg'])
    mkdirSync(join(base, d), { recursive: true });
  mkdirSync(join(dir, '.switchboard/plugins/checks'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard/plugins/checks/switchboard-plugin.yml'),
    'hooks:\n  test: { command: "true" }\n',
  );
  writeFileSync(join(dir, '.switchboard/scripts/nl/where.md'), '# where\n\nSay where you are.\n');
  writeFileSync(join(dir, '.switchboard/scripts/nl/escape.md'), '# escape\n\nEscape.\n');
  writeFileSync(
    join(dir, '.switchboard/scripts/compiled/escape.mjs'),
    `import { callScript } from ${JSON.stringify(SRC)};\nexport default function* () { yield callScript('where', '', { working_dir: '../..' }); }\n`,
  );
  writeFileSync(join(dir, '.switchboard/config.toml'), '[workspace]\nextra_dirs = ["../shared"]\n');
  symlinkSync(join(base, 'beside'), join(dir, 'link-out'));
  // A configured provider, so agent.start gets as far as its project_dir (no call reaches it: every one is refused).
  hub = await testHub({ cwd: dir, env: { ANTHROPIC_API_KEY: 'unused', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' } });
  await hub.ready();
  http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
  client = new Client({ name: 'paths', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await http?.close();
  await hub?.close();
  rmSync(base, { recursive: true, force: true });
});

/** The error text of a call over REST (with its status) and over MCP (an isError result). */
async function answers(tool: string, args: Record<string, unknown>) {
  const res = await fetch(`${http.url}/v1/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  const body = (await res.json()) as { error?: { message: string } };
  const result = await client.callTool({ name: tool, arguments: args });
  expect(result.isError, JSON.stringify(result)).toBe(true);
  return { status: res.status, rest: body.error?.message ?? '', mcp: (result.content as { text: string }[])[0].text };
}

/** Nothing absolute of the project's surroundings in `text`, once the path the caller wrote is taken out. */
function expectNoParentFolder(text: string, written: string) {
  expect(text.replaceAll(`'${written}'`, "'…'"), text).not.toContain(base);
}

const OUTSIDE = ['..', '../..', '../beside', 'pkg/../..', '/usr/share'];

describe('paths a caller wrote, in errors over REST and MCP', () => {
  it('a working_dir, project_dir or directory outside the workspace is named as written, extra_dirs as configured', async () => {
    const besideAbsolute = join(base, 'beside');
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['script__start', 'working_dir', { name: 'where' }, 'working_dir'],
      ['agent__start', 'project_dir', { session_name: 's', prompt: 'x', provider: 'anthropic' }, 'project_dir'],
    ];
    for (const [tool, field, more] of cases)
      for (const written of [...OUTSIDE, besideAbsolute]) {
        const { status, rest, mcp } = await answers(tool, { ...more, [field]: written });
        expect(status).toBe(400);
        for (const text of [rest, mcp]) {
          expect(text).toBe(
            `${field}: '${written}' is outside the directories sessions and scripts may work in: the project (.) and ../shared. Give a directory inside them, or add it to [workspace] extra_dirs in the configuration.`,
          );
          expectNoParentFolder(text, written);
        }
      }
    for (const written of OUTSIDE.slice(0, 4)) {
      const { status, rest, mcp } = await answers('checks__test', { directory: written });
      expect(status).toBe(400);
      for (const text of [rest, mcp]) {
        expect(text).toBe(
          `directory '${written}' is outside the project root; hooks only run inside the project. Give a path relative to the project root, e.g. 'packages/core', or omit it to run everywhere.`,
        );
        expectNoParentFolder(text, written);
      }
    }
  });

  it('a symbolic link out of the project is named as written, with where it leads relative to the project', async () => {
    for (const [tool, args, said] of [
      [
        'script__start',
        { name: 'where', working_dir: 'link-out' },
        "working_dir: 'link-out' (it resolves to ../beside) is outside the directories",
      ],
      [
        'agent__start',
        { session_name: 's', prompt: 'x', provider: 'anthropic', project_dir: 'link-out' },
        "project_dir: 'link-out' (it resolves to ../beside) is outside the directories",
      ],
      [
        'checks__test',
        { directory: 'link-out' },
        "directory 'link-out' (it resolves to ../beside) is outside the project root;",
      ],
    ] as const) {
      const { status, rest, mcp } = await answers(tool, args);
      expect(status).toBe(400);
      for (const text of [rest, mcp]) {
        expect(text).toContain(said);
        expectNoParentFolder(text, 'link-out');
      }
    }
  });

  it('a missing directory, and one in the workspace an agentless session may not use, are named as written', async () => {
    const missing = await answers('script__start', { name: 'where', working_dir: '../nowhere' });
    expect([missing.status, missing.rest, missing.mcp]).toEqual([
      400,
      "working_dir: '../nowhere' is not a directory.",
      "working_dir: '../nowhere' is not a directory.",
    ]);
    const shared = await answers('agent__start', {
      session_name: 's',
      prompt: 'x',
      provider: 'anthropic',
      project_dir: '../shared',
    });
    expect(shared.status).toBe(403);
    for (const text of [shared.rest, shared.mcp]) {
      expect(text).toContain(
        `A session without agent_name does not allow project_dir '../shared' (its sessions work in .)`,
      );
      expectNoParentFolder(text, '../shared');
    }
  });

  it("a nested script's working_dir outside the workspace is named as the script wrote it", async () => {
    for (const text of [
      await fetch(`${http.url}/v1/tools/script__start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'escape' }),
      }).then((r) => r.text()),
      JSON.stringify((await client.callTool({ name: 'script__start', arguments: { name: 'escape' } })).content),
    ]) {
      expect(text).toContain("The call to script `where` failed. working_dir: '../..' is outside the directories");
      expectNoParentFolder(text, '../..');
    }
  });
});
