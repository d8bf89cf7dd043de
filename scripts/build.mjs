// Builds dist/ with esbuild: one ESM bundle for the library and the CLI (a shared module graph, so
// handler modules importing 'switchboard' get the same zod instance), with native and loader packages external.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

// Start clean: code-split chunk names change with content, stale ones would pile up.
rmSync('dist', { recursive: true, force: true });

await build({
  entryPoints: { index: 'src/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  external: ['better-sqlite3', 'tsx', 'tsx/*', 'esbuild', 'ioredis', 'pino', 'thread-stream'],
  banner: {
    js: "import { createRequire as __sbCreateRequire } from 'node:module'; const require = __sbCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
