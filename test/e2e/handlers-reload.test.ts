// Handler modules are hot under `serve` (issue 29): an MCP client of a running `switchboard serve` (a real child
// process, the official SDK client over stdio, a fresh project) sees an edited module's new behaviour, an edited
// helper's too, a new module's tools and a removed one's gone — told by list_changed — without a restart. A module
// broken by an edit keeps answering as it last loaded, and system.health names the file; fixed, it loads again.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, tempProject } from '../helpers/cli.ts';
import { until } from '../helpers/until.ts';

const dir = tempProject();
const handlers = join(dir, '.switchboard', 'handlers');
let client: Client;
let listChanged = 0;

/** A module with one tool, `greet.hi`, that answers `${greeting}, NAME` with the greeting from its helper. */
const greetModule = (suffix = '') => `import { defineCapability, z } from 'switchboard-mcp';
import { greeting } from './_words.ts';

export const hi = defineCapability({
  name: 'greet.hi',
  description: 'Greet someone.',
  input: z.object({ name: z.string() }),
  handle: ({ name }) => \`\${greeting}, \${name}${suffix}\`,
});
`;
const words = (greeting: string) => `export const greeting = ${JSON.stringify(greeting)};\n`;

async function hi(): Promise<string> {
  const result = await client.callTool({ name: 'greet__hi', arguments: { name: 'Ada' } });
  return (result.content as { text: string }[])[0].text;
}
const tools = async () => (await client.listTools()).tools.map((t) => t.name);

beforeAll(async () => {
  mkdirSync(handlers, { recursive: true });
  writeFileSync(join(handlers, '_words.ts'), words('Hello'));
  writeFileSync(join(handlers, 'greet.ts'), greetModule());
  ({ client } = await connectStdio(dir, 'handlers-reload'));
  client.setNotificationHandler('notifications/tools/list_changed', async () => {
    listChanged++;
  });
});
afterAll(async () => {
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('handler modules under serve', () => {
  it('answer with an edited module and an edited helper, without a restart', async () => {
    expect(await hi()).toBe('Hello, Ada');
    writeFileSync(join(handlers, 'greet.ts'), greetModule('!'));
    expect(await until(async () => (await hi()) === 'Hello, Ada!', { what: 'the edited module' })).toBe(true);
    writeFileSync(join(handlers, '_words.ts'), words('Bonjour'));
    expect(await until(async () => (await hi()) === 'Bonjour, Ada!', { what: 'the edited helper' })).toBe(true);
  });

  it('list a new module, answer with its edited JavaScript helper, drop it removed, and say so with list_changed', async () => {
    const before = listChanged;
    writeFileSync(join(handlers, '_pong.mjs'), `export const answer = 'pong';\n`);
    writeFileSync(
      join(handlers, 'extra.mjs'),
      `import { defineCapability, z } from 'switchboard-mcp';
import { answer } from './_pong.mjs';
export const ping = defineCapability({ name: 'extra.ping', description: 'Ping.', input: z.object({}), handle: () => answer });
`,
    );
    await until(async () => (await tools()).includes('extra__ping'), { what: 'the new module in tools/list' });
    expect(listChanged).toBeGreaterThan(before);
    const ping = async () =>
      ((await client.callTool({ name: 'extra__ping', arguments: {} })).content as { text: string }[])[0].text;
    expect(await ping()).toBe('pong');
    writeFileSync(join(handlers, '_pong.mjs'), `export const answer = 'PONG';\n`);
    expect(await until(async () => (await ping()) === 'PONG', { what: 'the edited JavaScript helper' })).toBe(true);
    rmSync(join(handlers, 'extra.mjs'));
    await until(async () => !(await tools()).includes('extra__ping'), { what: 'the removed module gone' });
    expect(await tools()).toContain('greet__hi');
  });

  it('keep answering as last loaded while an edit breaks a module, with the file named in system.health', async () => {
    writeFileSync(join(handlers, 'greet.ts'), `${greetModule('?')}\nexport const oops = ;\n`);
    const health = async () => {
      const result = await client.callTool({ name: 'system__health', arguments: {} });
      return result.structuredContent as { services: Record<string, { status: string; detail?: string }> };
    };
    const broken = await until(
      async () => {
        const h = await health();
        return h.services.handlers.status !== 'healthy' && h.services.handlers;
      },
      { what: 'the broken module in system.health' },
    );
    expect(broken.detail).toContain('greet.ts');
    expect(await hi()).toBe('Bonjour, Ada!');
    writeFileSync(join(handlers, 'greet.ts'), greetModule('?'));
    expect(await until(async () => (await hi()) === 'Bonjour, Ada?', { what: 'the fixed module' })).toBe(true);
    // Health is cached for a moment: it turns healthy within that.
    await until(async () => (await health()).services.handlers.status === 'healthy', { what: 'healthy handlers' });
  });
});
