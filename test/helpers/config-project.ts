// Test helper: a temporary project with a project and/or user config.toml, and the env that points at its user file.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function configProject(projectToml?: string, userToml?: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-config-'));
  const home = join(dir, 'home');
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  mkdirSync(home, { recursive: true });
  if (projectToml !== undefined) writeFileSync(join(dir, '.switchboard/config.toml'), projectToml);
  if (userToml !== undefined) writeFileSync(join(home, 'config.toml'), userToml);
  return { dir, env: { SWITCHBOARD_HOME: home } };
}
