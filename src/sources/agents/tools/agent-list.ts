// agent.list: the agent definitions of the project, and the broken ones with their path and what is wrong.
// Markdown for people, JSON {total, agents, broken} for programs.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { loadDefinitions } from '../definitions.ts';
import { ResponseFormat } from './shared.ts';

export const agentList = defineCapability({
  name: 'agent.list',
  title: 'List agents',
  description:
    'List the sub-agent definitions of this project (.switchboard/agents/<name>/agent.json): name, description, provider, model, whether it has a system prompt and MCP servers, and what its sessions may do (permission_mode, shell, builtins, directories; a call may ask for less, never more). Broken definitions are listed with their path and the problem.',
  input: z.strictObject({ response_format: ResponseFormat }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: ({ response_format }, ctx) => {
    const { agents, broken } = loadDefinitions(ctx.services.projectDir);
    const list = agents.map((a) => ({
      name: a.name,
      description: a.description,
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
    if (response_format === 'json') return { total: list.length, agents: list, broken };
    if (!list.length && !broken.length)
      return 'No agents defined. Create .switchboard/agents/<name>/agent.json with {"name": "<name>", "description": "…"}.';
    const lines = ['# Agents', ''];
    for (const a of list)
      lines.push(
        `- **${a.name}**: ${a.description || '(no description)'}${a.provider ? ` — ${a.provider}` : ''}${a.model ? ` (${a.model})` : ''}${a.mcp_servers.length ? ` — MCP: ${a.mcp_servers.join(', ')}` : ''}`,
      );
    if (broken.length) {
      lines.push('', '## Broken definitions', '');
      for (const b of broken) lines.push(`- **${b.name}** (${b.path}): ${b.error}`);
    }
    return lines.join('\n');
  },
});
