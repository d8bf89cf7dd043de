// What the fake model APIs (fake-anthropic.ts, fake-openai.ts, fake-openai-responses.ts, fake-gemini.ts) share.
import type { IncomingMessage, ServerResponse } from 'node:http';

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

/** The whole request body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
