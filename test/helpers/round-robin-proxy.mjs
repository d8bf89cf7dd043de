// A load balancer without affinity, for tests: every HTTP request (streams included) goes to the next upstream in
// turn. Plus deleting a Redis key prefix (SCAN + UNLINK) for runners that are plain .mjs.
import { createServer, request } from 'node:http';
import { Redis } from 'ioredis';

/**
 * Listen on 127.0.0.1:0 and forward each request to the next of `bases` (http://host:port), round robin.
 *
 * @example
 * const proxy = await roundRobinProxy(['http://127.0.0.1:7001', 'http://127.0.0.1:7002']);
 * // proxy.url → 'http://127.0.0.1:PORT'; await proxy.close();
 */
export async function roundRobinProxy(bases) {
  const targets = bases.map((b) => new URL(b));
  let next = 0;
  const server = createServer((req, res) => {
    const to = targets[next++ % targets.length];
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: to.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Delete every key under `prefix` (never KEYS: SCAN in pages, UNLINK off the main thread). */
export async function dropPrefix(url, prefix) {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = nextCursor;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
