// Types for banner.mjs (plain JavaScript so the conformance runner can import it without a TypeScript loader).
import type { ChildProcess } from 'node:child_process';

export function watchServer(
  child: ChildProcess,
  timeoutMs: number,
): { ready: Promise<string>; stdout: () => string; stderr: () => string };
