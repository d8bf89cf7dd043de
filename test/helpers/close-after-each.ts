// One way for a test file to close what its tests started: after each test, what `open()` names now — in order, a
// hub before the fake API it talks to — each closed once, however many tests left it in the same variable.
import { afterEach } from 'vitest';

export function closeAfterEach(open: () => readonly ({ close(): Promise<unknown> } | undefined)[]): void {
  const closed = new WeakSet<object>();
  afterEach(async () => {
    for (const thing of open()) {
      if (!thing || closed.has(thing)) continue;
      closed.add(thing);
      await thing.close();
    }
  });
}
