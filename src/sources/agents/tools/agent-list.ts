// agent.list: the agent definitions of the project (Switchboard's and agent-orchestrator's folders), the broken ones
// with their path and what is wrong, and the folders a same-named one hides. Markdown for people, JSON for programs.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { loadDefinitions } from '../definitions.ts';
import { ResponseFormat } from './shared.ts';

export const agentList = defineCapability({
  name: 'agent.list',
  title: 'List agents',
  description:
    "List the sub-agent definitions of this project (.switchboard/agents/<name>/agent.json, and agent-orchestrator's .agent-orchestrator/agents/<name>/agent.json): name, description, source, tags, the parameters_schema agent__start's parameters must match, provider, model, whether it has a system prompt and MCP servers, and what its sessions may do (permission_mode, shell, builtins, directories; a call may ask for less, never more). tags keeps the agents that have all of them. Broken definitions are listed with their path and the problem.",
  input: z.strictObject({
    response_format: ResponseFormat,
    tags: z
      .array(z.string().min(1))
      .optional()
      .describe('Only agents having every one of these tags (agent-orchestrator: "internal", "external", …)'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: ({ response_format, tags }, ctx) => {
    const { agents, broken, hidden } = loadDefinitions(ctx.services.projectDir);
    const wanted = tags ?? [];
    const list = agents
      .filter((a) => wanted.every((t) => a.tags.includes(t)))
      .map((a) => ({
        name: a.name,
        description: a.description,
        source: a.source,
        tags: a.tags,
        parameters_schema: a.parameters_schema ?? null,
        has_output_schema: a.output_schema !== undefined,
        provider: a.provider ?? null,
        model: a.model ?? null,
        has_system_prompt: a.systemPrompt !== undefined,
        mcp_servers: Object.keys(a.mcpServers),
        roles: a.roles ?? ['agent'],
        // What a call may ask for; null: the default (acceptEdits, or the configuration's cap when lower).
        permission_mode: a.permission_mode ?? null,
        shell: a.shell,
        builtins: a.builtins,
        directories: a.directories,
      }));
    if (response_format === 'json') return { total: list.length, agents: list, broken, warnings: hidden };
    if (!list.length && !broken.length && !hidden.length)
      return 'No agents defined. Create .switchboard/agents/<name>/agent.json with {"name": "<name>", "description": "…"}.';
    const lines = ['# Agents', ''];
    for (const a of list)
      lines.push(
        `- **${a.name}**: ${a.description || '(no description)'}${a.source === 'agent-orchestrator' ? ' — from .agent-orchestrator/agents' : ''}${a.tags.length ? ` — tags: ${a.tags.join(', ')}` : ''}${a.parameters_schema ? ` — parameters: ${Object.keys((a.parameters_schema.properties as object) ?? {}).join(', ')}` : ''}${a.provider ? ` — ${a.provider}` : ''}${a.model ? ` (${a.model})` : ''}${a.mcp_servers.length ? ` — MCP: ${a.mcp_servers.join(', ')}` : ''}`,
      );
    if (broken.length) {
      lines.push('', '## Broken definitions', '');
      for (const b of broken) lines.push(`- **${b.name}** (${b.path}): ${b.error}`);
    }
    if (hidden.length) lines.push('', '## Not used', '', ...hidden.map((h) => `- ${h}`));
    return lines.join('\n');
  },
});
