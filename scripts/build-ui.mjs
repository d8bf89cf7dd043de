// Builds the dashboard (docs/dashboard.md) into dist/ui/: one JS and one CSS bundle with content-hashed names (served
// as immutable), index.html naming them, and a gzip and a brotli copy of each, so the server only picks a file.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export async function buildUi(outdir = 'dist/ui') {
  mkdirSync(`${outdir}/assets`, { recursive: true });
  const result = await build({
    entryPoints: { app: 'web/dashboard/main.ts' },
    outdir: `${outdir}/assets`,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).filter((f) => !f.endsWith('.map'));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  const html = readFileSync('web/dashboard/index.html', 'utf8')
    .replace('%APP_JS%', `/ui/assets/${basename(js)}`)
    .replace('%APP_CSS%', `/ui/assets/${basename(css)}`);
  writeFileSync(`${outdir}/index.html`, html);
  for (const file of [`${outdir}/index.html`, ...outputs]) {
    const data = readFileSync(file);
    writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
    writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  }
}
