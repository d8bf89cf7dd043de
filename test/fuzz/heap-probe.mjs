// Preloaded into a server under fuzz (NODE_OPTIONS=--expose-gc --import=…): on SIGUSR2 it collects garbage and
// writes process.memoryUsage() to $FUZZ_HEAP_FILE, so the test can tell a leak from heap headroom, together with
// any enumerable keys a plain object or array inherits (prototype pollution leaves some; a clean process has none).
import { writeFileSync } from 'node:fs';

const file = process.env.FUZZ_HEAP_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    globalThis.gc?.();
    const inherited = [];
    for (const key in {}) inherited.push(key);
    for (const key in []) inherited.push(`[]${key}`);
    writeFileSync(file, JSON.stringify({ ...process.memoryUsage(), inherited, at: Date.now() }));
  });
}
