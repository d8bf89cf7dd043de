// watchTargets: folders and files watched before they exist, siblings ignored, bursts debounced.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { nearestExisting, watchTargets } from '../../src/core/watch.ts';

const stops: Array<() => Promise<void>> = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const settle = (ms = 400) => new Promise((r) => setTimeout(r, ms));

it('sees a folder that did not exist when watching began, and ignores its siblings', async () => {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-watch-'));
  dirs.push(root);
  const target = join(root, '.switchboard', 'plugins');
  expect(nearestExisting(target)).toBe(root);
  const seen: string[] = [];
  stops.push(await watchTargets([target], { depthBelow: 2, debounceMs: 50, onChange: (p) => seen.push(p) }));
  mkdirSync(join(root, 'elsewhere'));
  writeFileSync(join(root, 'elsewhere', 'noise.txt'), 'x');
  await settle();
  expect(seen).toEqual([]);
  mkdirSync(join(target, 'lint'), { recursive: true });
  writeFileSync(join(target, 'lint', 'switchboard-plugin.yml'), 'hooks: {}\n');
  writeFileSync(join(target, 'lint', 'switchboard-plugin.yml'), 'hooks: { a: { command: x } }\n');
  for (let i = 0; i < 40 && seen.length === 0; i++) await settle(50);
  await settle(200);
  // One burst of changes, one call.
  expect(seen).toHaveLength(1);
  expect(seen[0].startsWith(target)).toBe(true);
});

it('watches a file through its folder, so a save by rename is seen', async () => {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-watch-'));
  dirs.push(root);
  const file = join(root, 'config.toml');
  writeFileSync(file, 'a = 1\n');
  const seen: string[] = [];
  stops.push(await watchTargets([file], { depthBelow: 0, debounceMs: 50, onChange: (p) => seen.push(p) }));
  writeFileSync(join(root, 'other.toml'), 'b = 2\n');
  await settle();
  expect(seen).toEqual([]);
  writeFileSync(`${file}.tmp`, 'a = 2\n');
  const { renameSync } = await import('node:fs');
  renameSync(`${file}.tmp`, file);
  for (let i = 0; i < 40 && seen.length === 0; i++) await settle(50);
  expect(seen).toEqual([file]);
});

it('follows a folder created step by step, then changes inside it', async () => {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-watch-'));
  dirs.push(root);
  const target = join(root, '.switchboard', 'plugins');
  const seen: string[] = [];
  stops.push(await watchTargets([target], { depthBelow: 2, debounceMs: 50, onChange: (p) => seen.push(p) }));
  mkdirSync(join(root, '.switchboard'));
  await settle();
  // The state database lives next to the plugins folder: its writes are not changes of the target.
  writeFileSync(join(root, '.switchboard', 'state.db-wal'), 'x');
  await settle();
  seen.splice(0);
  mkdirSync(target);
  for (let i = 0; i < 40 && seen.length === 0; i++) await settle(50);
  expect(seen).toEqual([target]);
  await settle();
  mkdirSync(join(target, 'lint'));
  writeFileSync(join(target, 'lint', 'switchboard-plugin.yml'), 'hooks: {}\n');
  for (let i = 0; i < 40 && seen.length === 1; i++) await settle(50);
  expect(seen).toHaveLength(2);
  expect(seen[1].startsWith(join(target, 'lint'))).toBe(true);
});

it('sees a file whose folder does not exist yet, and not the other files of that folder', async () => {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-watch-'));
  dirs.push(root);
  const file = join(root, '.switchboard', 'config.toml');
  const seen: string[] = [];
  stops.push(await watchTargets([file], { depthBelow: 0, debounceMs: 50, onChange: (p) => seen.push(p) }));
  mkdirSync(join(root, '.switchboard'));
  await settle();
  seen.splice(0);
  for (let i = 0; i < 5; i++) writeFileSync(join(root, '.switchboard', 'state.db-wal'), `write ${i}`);
  await settle();
  expect(seen).toEqual([]);
  writeFileSync(file, 'a = 1\n');
  for (let i = 0; i < 40 && seen.length === 0; i++) await settle(50);
  expect(seen).toEqual([file]);
});
