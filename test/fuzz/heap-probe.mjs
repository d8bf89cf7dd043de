// Preloaded into a server under fuzz (NODE_OPTIONS=--expose-gc --import=…): on SIGUSR2 it collects garbage and
// writes process.memoryUsage() to $FUZZ_HEAP_FILE, so the test can tell a leak from heap headroom.
import { writeFileSync } from 'node:fs';

const file = process.env.FUZZ_HEAP_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    globalThis.gc?.();
    writeFileSync(file, JSON.stringify({ ...process.memoryUsage(), at: Date.now() }));
  });
}
