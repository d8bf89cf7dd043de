// Claude Code hook logic: a typed `/name args` or a Skill call naming a compiled script is routed to
// `mcp__switchboard__script__start`, so compiled scripts always run through the executor's stack.
import { isAbsolute } from 'node:path';
import { loadNl } from './nl.ts';
import { type ResolvedScript, resolveScript, scriptRoots } from './resolve.ts';

/** The tool name Claude Code gives `script.start` of an MCP server registered as `switchboard`. */
export const CLAUDE_START_TOOL = 'mcp__switchboard__script__start';

interface HookEnv {
  /** Project directory when the hook input carries no usable `cwd`. */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

function find(name: string, input: Record<string, unknown>, opts: HookEnv): ResolvedScript | undefined {
  const project = typeof input.cwd === 'string' && isAbsolute(input.cwd) ? input.cwd : opts.cwd;
  try {
    return resolveScript(scriptRoots(project, opts.env), name);
  } catch {
    return undefined; // Not a script name at all: not ours.
  }
}

function startCall(script: ResolvedScript, args: string): string {
  return `call \`${CLAUDE_START_TOOL}\` with name=${JSON.stringify(script.name)} arguments=${JSON.stringify(args)}`;
}

const COMMAND = /^\/\/?([A-Za-z0-9_][A-Za-z0-9_.:/-]*)(?:\s+([\s\S]*))?$/;

/**
 * UserPromptSubmit: the text to add to the prompt, or undefined for none. `/name args` (or `//name`, `a:b` as
 * `a/b`) naming a compiled script → instructions to start it over MCP; a bundled NL-only script → its processed
 * text (Claude Code has no such command); a project or user NL-only script → nothing (Claude Code runs it as a
 * normal slash command). Anything else → nothing.
 *
 * @example
 * userPromptSubmit({ prompt: '/test:random' }, { cwd, env }) // 'This is the Switchboard script `test:random`…'
 */
export function userPromptSubmit(input: unknown, opts: HookEnv): string | undefined {
  if (!input || typeof input !== 'object' || typeof (input as { prompt?: unknown }).prompt !== 'string') return;
  const hook = input as Record<string, unknown>;
  const m = COMMAND.exec((hook.prompt as string).trim());
  if (!m) return;
  const args = (m[2] ?? '').trim();
  const script = find(m[1], hook, opts);
  if (!script) return;
  if (script.compiledFile)
    return `The user asked to run the Switchboard script \`${script.name}\`. It is a compiled script whose steps run through Switchboard: ${startCall(script, args)}, then follow its answers (they say which tool to call next). Do not carry out the script's steps any other way.`;
  if (script.level === 'bundled') return loadNl(script.nlFile, args);
  return;
}

/**
 * PreToolUse (matcher "Skill"): a deny decision when the model invokes a compiled script as a skill, telling it
 * to start the script over MCP instead; undefined otherwise.
 */
export function preToolUse(input: unknown, opts: HookEnv): Record<string, unknown> | undefined {
  if (!input || typeof input !== 'object') return;
  const hook = input as Record<string, unknown>;
  if (hook.tool_name !== 'Skill') return;
  const toolInput = hook.tool_input as Record<string, unknown> | undefined;
  const skill = toolInput?.skill;
  if (typeof skill !== 'string') return;
  const args = typeof toolInput?.args === 'string' ? toolInput.args : '';
  const script = find(skill, hook, opts);
  if (!script?.compiledFile) return;
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: `\`${script.name}\` is a compiled Switchboard script and must run through its executor: ${startCall(script, args)} instead of using the Skill tool.`,
    },
  };
}
