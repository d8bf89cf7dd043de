// The project's Meerkat server file (`.rkat/mcp.toml`, src/config/rkat-servers.ts) for the upstream source: read at
// start, where a file that cannot be served stops the start as an invalid config file does; re-read on every change,
// where an invalid edit is logged as an error and the servers it had stay, as with a config file's edit.
import { readRkatServers } from '../../config/rkat-servers.ts';
import type { ServerEntry } from '../../core/server-contributions.ts';
import { watchTargets } from '../../core/watch.ts';
import type { SourceContext } from '../index.ts';

export interface RkatWatch {
  /** The file's servers as last read without a problem. */
  servers(): ServerEntry[];
  /** Say which of the file's servers the config files' own of the same name hide (logged when that changes). */
  shadowed(): void;
  stop(): Promise<void>;
}

/** Read the project's `.rkat/mcp.toml` and watch it; `changed` is called after each edit that reads well. */
export async function watchRkatServers(ctx: SourceContext, changed: () => void): Promise<RkatWatch> {
  const { logger, projectDir } = ctx.services;
  let current = readRkatServers(projectDir);
  let told = '';
  const shadowed = () => {
    const names = new Set(ctx.services.config.get().servers.map((s) => s.name));
    const hidden = current.servers.map((s) => String(s.name)).filter((n) => names.has(n));
    if (hidden.join(',') !== told && hidden.length)
      logger.warn(
        { file: current.file, servers: hidden },
        'servers of the Meerkat file not used: the Switchboard config files define servers of the same names',
      );
    told = hidden.join(',');
  };
  const stop = await watchTargets([current.file], {
    depthBelow: 0,
    onChange: () => {
      try {
        current = readRkatServers(projectDir);
      } catch (err) {
        logger.error(
          { file: current.file, err: (err as Error).message },
          'Meerkat server file edit ignored: it is invalid',
        );
        return;
      }
      logger.info({ file: current.file, servers: current.servers.length }, 'Meerkat server file reloaded');
      shadowed();
      changed();
    },
  }).catch((err) => {
    logger.warn({ err, file: current.file }, 'the Meerkat server file is not watched; it is read at start only');
    return async () => {};
  });
  return {
    servers: () => current.servers as ServerEntry[],
    shadowed,
    stop,
  };
}
