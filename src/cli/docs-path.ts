// Where a message sends the user to read more: the docs shipped inside the installed package (the same version as
// the command, and readable without a network), by absolute path.
import { join } from 'node:path';
import { packageRoot } from '../core/module-loader.ts';

/** The path of `docs/<name>` in the running install, e.g. docPath('configuration.md'). */
export function docPath(name: string): string {
  return join(packageRoot() ?? '.', 'docs', name);
}
