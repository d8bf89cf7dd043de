// Values in effect that the configuration files do not give (`serve --port`): shown by get, kept through reloads
// and changes, and never written back into the project file as configuration.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LiveConfig } from '../../src/config/live.ts';
import { loadConfig } from '../../src/config/load.ts';

function liveConfig(projectToml: string): { config: LiveConfig; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-live-'));
  mkdirSync(join(dir, '.switchboard'));
  const file = join(dir, '.switchboard/config.toml');
  writeFileSync(file, projectToml);
  const env = { SWITCHBOARD_HOME: join(dir, '.home') };
  return { config: new LiveConfig(loadConfig(dir, env), env), file };
}

describe('LiveConfig overrides', () => {
  it('get shows the value in effect, overridden says where it came from, and reloads keep it', () => {
    const { config, file } = liveConfig('[server]\nport = 7000\n');
    config.override('server.port', 41234, 'serve --port 41234');
    expect(config.get().server.port).toBe(41234);
    expect(config.overridden()).toEqual([
      { key: 'server.port', value: 41234, from: 'serve --port 41234', configured: 7000 },
    ]);
    writeFileSync(file, '[server]\nport = 7001\npage_size = 50\n');
    config.reload();
    expect(config.get().server).toMatchObject({ port: 41234, page_size: 50 });
    expect(config.overridden()[0].configured).toBe(7001);
  });

  it('a patch or set carrying the overridden value leaves the configuration and the file as they were', async () => {
    const { config, file } = liveConfig('# ours\n[server]\nport = 7000\n');
    config.override('server.port', 41234, 'serve --port 41234');
    await config.patch({ server: { port: 41234, page_size: 25 } }, { persist: true });
    expect(readFileSync(file, 'utf8')).toContain('port = 7000');
    expect(readFileSync(file, 'utf8')).toContain('page_size = 25');
    expect(config.overridden()[0].configured).toBe(7000);
    await config.replace(structuredClone(config.get()) as unknown as Record<string, unknown>, { persist: true });
    expect(readFileSync(file, 'utf8')).not.toContain('41234');
    expect(config.get().server.port).toBe(41234);
    // A different port is a change of the configuration like any other.
    await config.patch({ server: { port: 7100 } });
    expect(config.overridden()[0].configured).toBe(7100);
  });
});
