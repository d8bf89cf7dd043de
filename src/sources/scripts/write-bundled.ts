// script.write_bundled: copy a bundled script (NL and compiled) into the project to customise it.
// Refuses to overwrite existing files unless `force` is set, and names the files it would overwrite.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { MODULE_EXTENSIONS } from '../../core/module-loader.ts';
import type { ScriptDeps } from './deps.ts';
import { normaliseName } from './resolve.ts';

const Input = z.strictObject({
  name: z.string().min(1).max(200).describe('Bundled script name, e.g. "commit-message".'),
  force: z.boolean().default(false).describe('Overwrite files that already exist in the project.'),
});

const Output = z.object({ name: z.string(), written: z.array(z.string()) });

export function scriptWriteBundled(deps: ScriptDeps) {
  return defineCapability({
    name: 'script.write_bundled',
    title: 'Copy bundled script',
    description:
      'Copy a script bundled with Switchboard (its NL file and compiled module) into the project (.switchboard/scripts) so it can be customised; the project copy then wins over the bundled one. Refuses to overwrite existing files unless force is true.',
    input: Input,
    output: Output,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handle: ({ name, force }) => {
      const { path, display } = normaliseName(name);
      const bundled = deps.roots.bundled;
      const copies: [string, string][] = [];
      const nl = join(bundled, 'nl', `${path}.md`);
      if (!existsSync(nl))
        throw new SwitchboardError(
          'NOT_FOUND',
          `No bundled script named '${display}'. Call script__list to see the bundled scripts (level "bundled").`,
        );
      copies.push([nl, join(deps.roots.project, 'nl', `${path}.md`)]);
      for (const ext of MODULE_EXTENSIONS) {
        const compiled = join(bundled, 'compiled', `${path}${ext}`);
        if (existsSync(compiled)) copies.push([compiled, join(deps.roots.project, 'compiled', `${path}${ext}`)]);
      }
      const taken = copies.filter(([, to]) => existsSync(to)).map(([, to]) => relative(deps.projectDir, to));
      if (taken.length && !force)
        throw new SwitchboardError(
          'CONFLICT',
          `The project already has ${taken.join(', ')}; pass force: true to overwrite ${taken.length > 1 ? 'them' : 'it'}.`,
          { existing: taken },
        );
      for (const [from, to] of copies) {
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(from, to);
      }
      deps.refresh();
      return { name: display, written: copies.map(([, to]) => relative(deps.projectDir, to) || basename(to)) };
    },
  });
}
