// Vitest global setup: the scale-out tests need a Redis at 127.0.0.1:6379 (or SWITCHBOARD_TEST_REDIS). When none
// answers there, start a private redis-server (from PATH, no persistence) for the run and stop it afterwards, so
// `npm test` needs only redis-server installed, not running.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';

const url = new URL(process.env.SWITCHBOARD_TEST_REDIS ?? 'redis://127.0.0.1:6379');

/** Whether something answers PING with PONG at the URL's host and port. */
function answers(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port });
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => finish(d.toString().startsWith('+PONG')));
  });
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const host = url.hostname;
  const port = Number(url.port || 6379);
  if (await answers(host, port)) return undefined;
  const child: ChildProcess = spawn(
    'redis-server',
    ['--bind', host, '--port', String(port), '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (err) =>
      reject(
        new Error(
          `npm test needs Redis at ${url.host}: none answers and redis-server could not start (${err.message}). Install redis-server (e.g. apt-get install redis-server) or set SWITCHBOARD_TEST_REDIS.`,
        ),
      ),
    );
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code} before answering at ${url.host}`)));
  });
  const ready = (async () => {
    for (let i = 0; i < 100 && !(await answers(host, port)); i++) await new Promise((r) => setTimeout(r, 50));
  })();
  await Promise.race([ready, failed]);
  if (!(await answers(host, port))) throw new Error(`redis-server did not answer at ${url.host} within 5 s`);
  child.removeAllListeners('exit');
  return async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
}
