// The package version, read once from package.json so the CLI, serverInfo and OpenAPI agree.
import { readFileSync } from 'node:fs';

function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      return JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')).version;
    } catch {
      // Try the next location: src/ and dist/ sit at different depths.
    }
  }
  return '0.0.0';
}

export const version: string = readVersion();
