// End-to-end: HTTP settings from `.switchboard/config.toml` — exact extra origins and extra host names.

import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServerProcess, startHttpServer, tempProject } from '../helpers/cli.ts';

let server: HttpServerProcess;
beforeAll(async () => {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    '[server]\nallowed_origins = ["https://app.example.com"]\nallowed_hosts = ["switchboard.internal"]\nmax_body_bytes = 2048\n',
  );
  server = await startHttpServer(dir);
});
afterAll(() => server?.stop());

const echo = (headers: Record<string, string>, text = 'x') =>
  fetch(`${server.url}/v1/tools/fixture__echo`, { method: 'POST', headers, body: JSON.stringify({ text }) });

describe('HTTP configuration', () => {
  it('accepts exactly the listed origins: scheme and port count', async () => {
    expect((await echo({ origin: 'https://app.example.com' })).status).toBe(200);
    expect((await echo({ origin: 'http://app.example.com' })).status).toBe(403);
    expect((await echo({ origin: 'https://app.example.com:8443' })).status).toBe(403);
  });

  it('accepts an extra Host name', async () => {
    const url = new URL(server.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/healthz', headers: { host: 'switchboard.internal:7777' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

  it('applies max_body_bytes', async () => {
    expect((await echo({}, 'y'.repeat(1000))).status).toBe(200);
    const big = await echo({}, 'y'.repeat(4000));
    expect(big.status).toBe(413);
    expect((await big.json()).error.message).toMatch(/limit of 2048 bytes|limit is 2048 bytes/);
  });
});
