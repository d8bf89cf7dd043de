// script.list: every script this project can run — project, user and bundled levels, first match wins —
// with whether it is compiled and where each part came from.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import type { ScriptDeps } from './deps.ts';
import { describeNl } from './nl.ts';

const ScriptInfo = z.object({
  name: z.string(),
  level: z.enum(['project', 'user', 'bundled']),
  kind: z.enum(['compiled', 'nl']),
  compiled_level: z.enum(['project', 'user', 'bundled']).nullable(),
  description: z.string(),
});

const Input = z.strictObject({});

const Output = z.object({ scripts: z.array(ScriptInfo) });

export function scriptList(deps: ScriptDeps) {
  return defineCapability({
    name: 'script.list',
    title: 'List scripts',
    description:
      'List the scripts script__start can run: name, level (project .switchboard/scripts, user ~/.switchboard/scripts, or bundled with Switchboard), whether a compiled version runs its steps automatically, and a one-line description.',
    input: Input,
    output: Output,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: () => ({
      scripts: deps.refresh().map((s) => ({
        name: s.name,
        level: s.level,
        kind: s.compiledFile ? ('compiled' as const) : ('nl' as const),
        compiled_level: s.compiledLevel ?? null,
        description: describeNl(s.nlFile),
      })),
    }),
  });
}
