// The `claude-cli` provider: one `claude -p --output-format=stream-json …` per turn in the session's project
// directory, resumed with `--resume=<provider session id>`; the prompt goes in on standard input, so no prompt is
// ever read as one of claude's options; the process group dies on cancel.
import { randomUUID } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import type { AgentsConfig } from '../../../config/schema.ts';
import { argv } from '../../../core/argv.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { minimalEnv, runProcess } from '../../../core/process.ts';
import { traceFields } from '../../../core/trace-context.ts';
import type { Provider, TurnRequest } from './provider.ts';

/** node_modules/.bin of every folder above this module (from src/ or the dist/ bundle alike), nearest first. */
function packageBins(): string[] {
  const out: string[] = [];
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    out.push(join(dir, 'node_modules/.bin'));
    if (dirname(dir) === dir) return out;
  }
}

/** Whether this process may execute `path`. */
export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The claude command: a path as given, or a bare name on PATH, then in the project's and Switchboard's node_modules/.bin. */
export function findClaude(config: AgentsConfig, env: NodeJS.ProcessEnv, projectDir: string): string | undefined {
  const command = config.providers['claude-cli'].command;
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(projectDir, command);
    return executable(path) ? path : undefined;
  }
  const dirs = [
    ...(env.PATH ?? '').split(delimiter).filter(Boolean),
    join(projectDir, 'node_modules/.bin'),
    ...packageBins(),
  ];
  return dirs.map((d) => join(d, command)).find(executable);
}

/**
 * The child's environment: the basics, the hub's ANTHROPIC_* / CLAUDE_* settings, the configured extras, the agent's
 * profile and the caller's limit.
 */
function childEnv(req: TurnRequest): Record<string, string> {
  const claude: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.env)) {
    if (v !== undefined && (k === 'IS_SANDBOX' || k.startsWith('ANTHROPIC_') || k.startsWith('CLAUDE_'))) claude[k] = v;
  }
  // The agent's profile and the caller's limit reach the Switchboard its agent.mcp.json (or claude's own settings)
  // starts: `switchboard serve` reads both. The limit comes last: no configured variable replaces it.
  const profile: Record<string, string> = req.agent?.profile ? { SWITCHBOARD_PROFILE: req.agent.profile } : {};
  // The call's W3C trace, for what claude and the servers it starts do with it (TRACEPARENT, as plugin hooks get it).
  const trace = req.trace ? traceFields(req.trace, { parent: 'TRACEPARENT', state: 'TRACESTATE' }) : {};
  const out = minimalEnv(
    { ...claude, ...req.config.providers['claude-cli'].env, ...profile, ...trace, ...req.limitEnv },
    req.env,
  );
  if (req.maxTokensExplicit) out.CLAUDE_CODE_MAX_OUTPUT_TOKENS = String(req.maxTokens);
  return out;
}

/**
 * A Claude Code permission rule that denies editing anything in `dir` (absolute): `Edit(//<dir>/**)`. Edit rules
 * cover every tool that writes files (Edit, Write, NotebookEdit), and claude matches them against the target's real
 * path, so a symlink into `dir` is caught too. A pattern character (`*`, `?`, `[`, `{`, `(`, …) in the path becomes
 * `?`, which matches any one character: backslash escapes are not honoured, and the rule may only deny more.
 *
 * @example
 * denyEdits('/repo/.switchboard') // 'Edit(//repo/.switchboard/**)'
 */
export function denyEdits(dir: string): string {
  return `Edit(/${dir.replace(/[^\p{L}\p{N} ._,~+=@%:/-]/gu, '?')}/**)`;
}

type ClaudeEvent = { type?: string; subtype?: string; [k: string]: any };

export const claudeCliProvider: Provider = {
  name: 'claude-cli',
  toolLoop: false,
  problem(config, env, projectDir) {
    if (findClaude(config, env, projectDir)) return undefined;
    return `The claude-cli provider needs the \`${config.providers['claude-cli'].command}\` command: install Claude Code (npm i -D @anthropic-ai/claude-code) or set command in [agents.providers.claude-cli]. Its credentials are claude's own (ANTHROPIC_API_KEY or \`claude login\`).`;
  },
  defaultModel: (config) => config.providers['claude-cli'].model,
  async runTurn(req) {
    const command = findClaude(req.config, req.env, req.meta.project_dir);
    if (!command)
      throw new SwitchboardError('UNAVAILABLE', this.problem(req.config, req.env, req.meta.project_dir) as string);
    if (!req.prompt)
      throw new SwitchboardError('INVALID_INPUT', 'The claude-cli provider needs a prompt for every turn.');
    // The runtime records the granted mode in the meta before every turn (src/sources/agents/grant.ts).
    const permissionMode = req.meta.options.permission_mode;
    if (!permissionMode)
      throw new SwitchboardError(
        'INTERNAL',
        'The session has no permission_mode; it is set before every claude-cli turn.',
      );
    // A new session gets its id from us, so the meta names it before claude starts: a crash mid-turn stays resumable.
    const sessionId = req.meta.provider_session_id ?? randomUUID();
    const resuming = req.meta.provider_session_id !== null;
    // Caller text (prompt, model, system prompt) is never a word of its own: the prompt goes in on stdin (`-p` with
    // no prompt operand reads it there) and every value is `--option=value`, one word, whatever it begins with.
    const args = argv()
      .flag('-p')
      .option('--output-format', 'stream-json')
      .flag('--verbose')
      .option('--permission-mode', permissionMode);
    // Below bypassPermissions the session may not edit the hub's own files (its configuration, agent definitions,
    // scripts, plugins): a caller could otherwise write itself a wider grant and use it. bypassPermissions runs
    // any command, so there a rule on edits would promise what it cannot keep; the owner granted it on purpose.
    if (permissionMode !== 'bypassPermissions') args.options('--disallowedTools', req.hubDirs.map(denyEdits));
    if (resuming) args.option('--resume', sessionId);
    else args.option('--session-id', sessionId);
    if (req.model) args.option('--model', req.model);
    if (req.systemPrompt) args.option('--append-system-prompt', req.systemPrompt);
    if (req.agent?.mcpInline) args.option('--mcp-config', JSON.stringify({ mcpServers: req.agent.mcpServers }));
    else if (req.agent?.mcpConfigPath) args.option('--mcp-config', req.agent.mcpConfigPath);
    req.emit([{ type: 'provider_start', provider: 'claude-cli', provider_session_id: sessionId, resume: resuming }]);
    let result: ClaudeEvent | undefined;
    let toolCalls = 0;
    const run = await runProcess(command, args.build(), {
      signal: req.signal,
      input: req.prompt,
      cwd: req.meta.project_dir,
      env: childEnv(req),
      timeoutMs: req.config.turn_timeout_ms,
      onStdoutLine: (line) => {
        if (!line.trim()) return;
        let event: ClaudeEvent;
        try {
          event = JSON.parse(line);
        } catch {
          req.emit([{ type: 'claude_output', text: line }]);
          return;
        }
        if (event.type === 'assistant') {
          for (const b of event.message?.content ?? []) if (b?.type === 'tool_use') toolCalls++;
        }
        if (event.type === 'result') result = event;
        req.emit([{ type: 'claude', event }]);
      },
    });
    if (!result) {
      const why = run.timedOut
        ? `timed out after ${req.config.turn_timeout_ms} ms ([agents] turn_timeout_ms)`
        : `exited with code ${run.exitCode} without a result`;
      throw new SwitchboardError('INTERNAL', `claude ${why}: ${run.stderr.trim().slice(-2000) || '(no stderr)'}`);
    }
    if (result.is_error || result.subtype !== 'success') {
      const what = result.subtype && result.subtype !== 'success' ? result.subtype : 'an error';
      throw new SwitchboardError(
        'INTERNAL',
        `claude ended the turn with ${what}: ${String(result.result ?? result.error ?? '').slice(0, 2000)}`,
      );
    }
    return {
      status: 'completed',
      text: String(result.result ?? ''),
      providerSessionId: String(result.session_id ?? sessionId),
      usage: {
        input_tokens: Number(result.usage?.input_tokens ?? 0),
        output_tokens: Number(result.usage?.output_tokens ?? 0),
      },
      modelCalls: Number(result.num_turns ?? 1),
      toolCalls,
    };
  },
};
