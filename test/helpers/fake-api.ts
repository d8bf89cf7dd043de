// What the fake model APIs (fake-anthropic.ts, fake-openai.ts) share.
import type { ServerResponse } from 'node:http';

/**
 * Wait `ms` before answering, or less when the client hangs up (a cancel); true when there is still someone to
 * answer.
 */
export async function delayReply(res: ServerResponse, ms: number): Promise<boolean> {
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    res.on('close', () => {
      clearTimeout(t);
      resolve();
    });
  });
  return !(res.destroyed || res.writableEnded);
}
