// Where the originals' own data files are: `../shared/originals` beside the repository (CI and our machines have it,
// a user's clone does not). Only tests under test/originals read it; they run in `npm run test:shared`, never in
// `npm test` (scripts/test-shared.mjs checks the folder is there first and says so when it is not).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** `../shared` beside this repository, or SWITCHBOARD_SHARED_DIR when set (a checkout elsewhere). */
export const SHARED = process.env.SWITCHBOARD_SHARED_DIR
  ? resolve(process.env.SWITCHBOARD_SHARED_DIR)
  : resolve(import.meta.dirname, '../../../shared');

/**
 * The path of one original's file, e.g. `original('mekara', 'cassettes/mcp-nested.yaml')`; throws naming the path when
 * it is missing, so a test never passes over a file it was meant to read.
 */
export function original(project: string, ...parts: string[]): string {
  const path = join(SHARED, 'originals', project, ...parts);
  if (!existsSync(path))
    throw new Error(`${path} is missing: the originals' data files are expected in ${SHARED}/originals`);
  return path;
}

/**
 * The JSON example that follows `label` (a line such as `Full example:`) in one original's design doc in
 * `../shared/seeds`, parsed: the examples its users copy from its docs, read as they are written there.
 */
export function seedExample(file: string, label: string): Record<string, unknown> {
  const path = join(SHARED, 'seeds', file);
  if (!existsSync(path)) throw new Error(`${path} is missing: the design docs are expected in ${SHARED}/seeds`);
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(`\n${label}\n`);
  const block = at === -1 ? null : /```json\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block) throw new Error(`${path}: no \`\`\`json block after the line '${label}'`);
  return JSON.parse(block[1]);
}

/** The path of a public data set's file in `../shared/datasets`, e.g. `dataset('mcp-registry', 'seed_2025_05_16.json')`. */
export function dataset(...parts: string[]): string {
  const path = join(SHARED, 'datasets', ...parts);
  if (!existsSync(path)) throw new Error(`${path} is missing: the data sets are expected in ${SHARED}/datasets`);
  return path;
}
