// Waiting for `switchboard serve --http` to be ready: it prints its banner, which names the URL, on stdout.
// Plain JavaScript so both the vitest helpers and the conformance runner (run by node directly) can use it.
import { stripVTControlCharacters } from 'node:util';

/**
 * Collect the child's output and resolve with the base URL (`http://127.0.0.1:PORT`) once the banner names it;
 * reject when the child exits first or `timeoutMs` passes, quoting its stderr. A child that did not start in time is
 * killed, so a slow start under load fails one test instead of leaking a server into the rest of the run.
 *
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} timeoutMs
 * @returns {{ ready: Promise<string>, stdout: () => string, stderr: () => string }}
 */
export function watchServer(child, timeoutMs) {
  let out = '';
  let err = '';
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${timeoutMs} ms; stderr:\n${err}`));
    }, timeoutMs);
    child.stdout?.on('data', (d) => {
      out += d;
      const m = /MCP \(Streamable HTTP\)\s+\S*?(http:\/\/[^\s/]+)\/mcp/.exec(stripVTControlCharacters(out));
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready; stderr:\n${err}`));
    });
  });
  return { ready, stdout: () => out, stderr: () => err };
}
