// Test helper: a real hub whose agents talk to the fake model APIs, with agent definitions written on disk.
// The claude-cli provider points at the real binary with its own HOME; model credentials come from the env only.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type TestHub, testHub } from '../../helpers/hub.ts';

export const CLAUDE_BIN = resolve(import.meta.dirname, '../../../node_modules/.bin/claude');

export interface AgentHubOptions {
  /** Base URL of the fake Anthropic API (sets ANTHROPIC_BASE_URL and a dummy key). */
  anthropic?: string;
  /** Base URL of the fake OpenAI API (sets OPENAI_BASE_URL and a dummy key). */
  openai?: string;
  /** Base URL of the fake Gemini API (sets GOOGLE_GEMINI_BASE_URL and a dummy key). */
  gemini?: string;
  /** Extra TOML appended to .switchboard/config.toml. */
  config?: string;
  env?: Record<string, string | undefined>;
  /** The claude-cli command (default: the real binary from node_modules). */
  claudeCommand?: string;
  /** `[agents.providers.claude-cli] permission_mode`, the most any agent may be granted (default: the config's). */
  claudePermissionLimit?: string;
  /** Agent definitions: folder name → files (agent.json as an object, others as text). */
  agents?: Record<string, { json?: unknown; prompt?: string; mcp?: unknown; raw?: string }>;
}

export async function agentHub(opts: AgentHubOptions = {}): Promise<TestHub> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-agents-'));
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard', 'config.toml'),
    `[agents.providers.claude-cli]\ncommand = "${opts.claudeCommand ?? CLAUDE_BIN}"\nenv = { HOME = "${join(dir, '.home')}", IS_SANDBOX = "1", SWITCHBOARD_SNAPSHOT = "0" }\n${opts.claudePermissionLimit ? `permission_mode = "${opts.claudePermissionLimit}"\n` : ''}${opts.config ?? ''}\n`,
  );
  for (const [name, files] of Object.entries(opts.agents ?? {})) {
    const folder = join(dir, '.switchboard', 'agents', name);
    mkdirSync(folder, { recursive: true });
    if (files.raw !== undefined) writeFileSync(join(folder, 'agent.json'), files.raw);
    else if (files.json !== undefined) writeFileSync(join(folder, 'agent.json'), JSON.stringify(files.json));
    if (files.prompt !== undefined) writeFileSync(join(folder, 'agent.system-prompt.md'), files.prompt);
    if (files.mcp !== undefined) writeFileSync(join(folder, 'agent.mcp.json'), JSON.stringify(files.mcp));
  }
  const env: Record<string, string | undefined> = {
    ANTHROPIC_API_KEY: undefined,
    ANTHROPIC_BASE_URL: undefined,
    OPENAI_API_KEY: undefined,
    OPENAI_BASE_URL: undefined,
    GEMINI_API_KEY: undefined,
    GOOGLE_API_KEY: undefined,
    GOOGLE_GEMINI_BASE_URL: undefined,
    ...(opts.anthropic ? { ANTHROPIC_BASE_URL: opts.anthropic, ANTHROPIC_API_KEY: 'test-key' } : {}),
    ...(opts.openai ? { OPENAI_BASE_URL: opts.openai, OPENAI_API_KEY: 'test-key' } : {}),
    ...(opts.gemini ? { GOOGLE_GEMINI_BASE_URL: opts.gemini, GEMINI_API_KEY: 'test-key' } : {}),
    ...opts.env,
  };
  const hub = await testHub({ cwd: dir, env: env as NodeJS.ProcessEnv });
  const close = hub.close.bind(hub);
  return Object.assign(hub, {
    async close() {
      await close();
      // A process the turn started may still be leaving files (ENOTEMPTY): retried, not raced.
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  });
}
