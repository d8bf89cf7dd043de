// The package version, so the CLI, serverInfo and OpenAPI agree. The build writes it into the bundles
// (scripts/build.mjs defines __SWITCHBOARD_VERSION__): the startup snapshot evaluates this module while it is
// built, where no package.json can be found from `import.meta.url`. From source (tests, tsx) it is read from
// package.json.
import { readFileSync } from 'node:fs';

declare const __SWITCHBOARD_VERSION__: string | undefined;

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

export const version: string = typeof __SWITCHBOARD_VERSION__ === 'string' ? __SWITCHBOARD_VERSION__ : readVersion();
