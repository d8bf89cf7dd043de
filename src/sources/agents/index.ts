// The `agents` source: named, resumable sub-agent sessions on claude-cli, anthropic, openai or gemini, as the
// agent.* and session.* capabilities. Nothing slow at start: definitions and sessions are read when used.
import type { Capability } from '../../core/capability.ts';
import type { Services } from '../../core/context.ts';
import { SwitchboardError } from '../../core/errors.ts';

/** Version of the agents feature contract in `system.capabilities` (the tools' input and result shapes). */
const CONTRACT_VERSION = '1.0';

import type { Source } from '../index.ts';
import { PROVIDERS } from './definitions.ts';
import type { McpToolOpener } from './mcp-tools.ts';
import { anthropicProvider } from './providers/anthropic.ts';
import { claudeCliProvider } from './providers/claude-cli.ts';
import { geminiProvider } from './providers/gemini.ts';
import { openaiProvider } from './providers/openai.ts';
import { AgentRuntime } from './runtime.ts';
import { agentCancel } from './tools/agent-cancel.ts';
import { agentList } from './tools/agent-list.ts';
import { agentResult } from './tools/agent-result.ts';
import { agentResume } from './tools/agent-resume.ts';
import { agentStart } from './tools/agent-start.ts';
import { agentStatus } from './tools/agent-status.ts';
import { sessionClean } from './tools/session-clean.ts';
import { sessionList } from './tools/session-list.ts';
import { sessionTranscript } from './tools/session-transcript.ts';

/** Report the agents feature, each provider, built-ins and shell to `system.capabilities`. */
function reportFeatures(services: Services, rt: AgentRuntime): void {
  const cfg = rt.config();
  const ready = PROVIDERS.filter((p) => !rt.providerProblem(p));
  services.features.set({
    name: 'agents',
    status: 'Available',
    contractVersion: CONTRACT_VERSION,
    description: `Named, resumable sub-agent sessions. Providers ready: ${ready.join(', ') || 'none'}; default ${cfg.default_provider}; at most ${cfg.max_running} turns at once; ${cfg.max_model_calls} model calls per turn; ${cfg.max_tokens} max tokens by default.`,
  });
  for (const p of PROVIDERS) {
    const problem = rt.providerProblem(p);
    services.features.set({
      name: `agents.provider.${p}`,
      status: problem ? 'NotConfigured' : 'Available',
      contractVersion: CONTRACT_VERSION,
      description: `The ${p} provider for agent sessions.`,
      ...(problem ? { reason: problem } : {}),
    });
  }
  for (const [name, on, what, key] of [
    [
      'agents.builtins',
      cfg.builtins,
      "Switchboard's own tools for agents (enable_builtins), for agents whose agent.json allows them",
      'builtins',
    ],
    [
      'agents.shell',
      cfg.shell,
      'A shell tool for agents (builtin_config.enable_shell), for agents whose agent.json says "shell": true',
      'shell',
    ],
    ['agents.structured_output', true, 'Final answers validated against output_schema, with retries', ''],
  ] as const) {
    services.features.set({
      name,
      status: on ? 'Available' : 'DisabledByPolicy',
      contractVersion: CONTRACT_VERSION,
      description: what,
      ...(on ? {} : { reason: `[agents] ${key} = false` }),
    });
  }
}

/** The MCP client is loaded when a turn first connects to an agent's servers, not at start-up. */
const openMcpTools: McpToolOpener = async (servers, opts) =>
  (await import('./mcp-tools.ts')).openMcpTools(servers, opts);

/** The agents source's tools; their schemas are module constants (why: src/snapshot-tools.ts). */
export function agentCapabilities(rt: AgentRuntime): Capability[] {
  return [
    agentList,
    sessionList(rt),
    agentStart(rt),
    agentResume(rt),
    agentStatus(rt),
    agentResult(rt),
    agentCancel(rt),
    sessionClean(rt),
    sessionTranscript(rt),
  ] as Capability[];
}

const source: Source = {
  name: 'agents',
  async start({ services, pipeline, env }) {
    const rt = new AgentRuntime({
      services,
      pipeline,
      env,
      providers: {
        'claude-cli': claudeCliProvider,
        anthropic: anthropicProvider,
        openai: openaiProvider,
        gemini: geminiProvider,
      },
      openMcp: openMcpTools,
    });
    const caps = agentCapabilities(rt);
    services.registry.batch(() => {
      for (const cap of caps) {
        const added = services.registry.add({ ...cap, source: 'agents', feature: 'agents' });
        if (!added.ok) throw new SwitchboardError('INTERNAL', added.message);
      }
    });
    reportFeatures(services, rt);
    const off = services.config.onChange(() => reportFeatures(services, rt));
    return {
      ready: Promise.resolve(),
      async stop() {
        off();
        await rt.stop();
        services.registry.batch(() => {
          for (const cap of caps) services.registry.remove(cap.name);
        });
      },
    };
  },
};

export default source;
