// script.list: every script this project can run — project, mekara, user, user-mekara and bundled levels, first match wins —
// with whether it is compiled (and in which language), where each part came from, and the files a clash hides.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import type { ScriptDeps } from './deps.ts';
import { describeNl } from './nl.ts';
import { LEVELS, type ScriptLevel } from './resolve.ts';

const Level = z.enum(LEVELS as [ScriptLevel, ...ScriptLevel[]]);

const ScriptInfo = z.object({
  name: z.string(),
  level: Level,
  kind: z.enum(['compiled', 'nl']),
  compiled_level: Level.nullable(),
  compiled_language: z.enum(['javascript', 'python']).nullable(),
  description: z.string(),
});

const Input = z.strictObject({});

const Output = z.object({
  scripts: z.array(ScriptInfo),
  warnings: z
    .array(z.string())
    .describe('Script files that are not used because another file has the same name, each naming both files.'),
});

export function scriptList(deps: ScriptDeps) {
  return defineCapability({
    name: 'script.list',
    title: 'List scripts',
    description:
      'List the scripts script__start can run: name, level (project .switchboard/scripts, mekara .mekara/scripts, user ~/.switchboard/scripts, user-mekara ~/.mekara/scripts, or bundled with Switchboard), whether a compiled version (JavaScript or mekara Python) runs its steps automatically, and a one-line description; warnings name script files hidden by a same-named one.',
    input: Input,
    output: Output,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: () => ({
      scripts: deps.refresh().map((s) => ({
        name: s.name,
        level: s.level,
        kind: s.compiledFile ? ('compiled' as const) : ('nl' as const),
        compiled_level: s.compiledLevel ?? null,
        compiled_language: s.compiledFile
          ? s.compiledFile.endsWith('.py')
            ? ('python' as const)
            : ('javascript' as const)
          : null,
        description: describeNl(s.nlFile),
      })),
      warnings: deps.clashes(),
    }),
  });
}
