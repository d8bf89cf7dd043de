// Test helpers for plugins: write a project with plugin folders, manifests and files in a temporary directory.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A fresh project directory (real path, so results compare with what hooks see). */
export function pluginProject(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), 'switchboard-plugins-')));
}

/** Write files (path → content) under `root`, creating folders. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

/** Write a plugin manifest into `<root>/<folder>/<file>` (default `.switchboard/plugins/<name>/switchboard-plugin.yml`). */
export function writePlugin(
  root: string,
  name: string,
  yaml: string,
  opts: { folder?: string; file?: string } = {},
): string {
  const dir = join(root, opts.folder ?? join('.switchboard', 'plugins', name));
  writeFiles(dir, { [opts.file ?? 'switchboard-plugin.yml']: yaml });
  return dir;
}
