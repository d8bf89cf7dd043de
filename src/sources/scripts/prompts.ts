// Every NL script as an MCP prompt (`prompts/get` with an `arguments` argument), so clients that offer prompts
// as slash commands show the project's scripts with no installation. A compiled script's prompt says to run it.
import { z } from 'zod';
import type { Registry } from '../../core/registry.ts';
import type { PromptDef } from '../../core/resource.ts';
import { describeNl, loadNl } from './nl.ts';
import type { ResolvedScript } from './resolve.ts';

const Args = z.object({
  arguments: z.string().optional().describe('Replaces $ARGUMENTS in the script.'),
});

/** The prompt for one script. */
export function scriptPrompt(script: ResolvedScript): PromptDef {
  return {
    name: script.name,
    title: `Script ${script.name}`,
    description: describeNl(script.nlFile) || `Switchboard script ${script.name}`,
    args: Args,
    get: (args) => {
      const argText = args.arguments ?? '';
      const text = script.compiledFile
        ? `Run the Switchboard script \`${script.name}\`: call the tool \`script__start\` with ${JSON.stringify({ name: script.name, arguments: argText })} and follow its answers (they say which tool to call next). Do not carry out the script's steps any other way.`
        : loadNl(script.nlFile, argText);
      return { description: `Script ${script.name}`, messages: [{ role: 'user', content: { type: 'text', text } }] };
    },
  };
}

/** Keeps the registry's script prompts equal to the scripts on disk; returns the names it serves. */
export class ScriptPrompts {
  private served = new Map<string, string>();

  constructor(private readonly registry: Registry) {}

  sync(scripts: readonly ResolvedScript[]): void {
    const next = new Map(scripts.map((s) => [s.name, `${s.nlFile}|${s.compiledFile ?? ''}`]));
    this.registry.batch(() => {
      for (const name of this.served.keys()) if (!next.has(name)) this.registry.removePrompt(name);
      for (const s of scripts)
        if (this.served.get(s.name) !== next.get(s.name)) this.registry.addPrompt(scriptPrompt(s));
    });
    this.served = next;
  }

  clear(): void {
    this.registry.batch(() => {
      for (const name of this.served.keys()) this.registry.removePrompt(name);
    });
    this.served.clear();
  }
}
