// agent-orchestrator's own agents vendored in test/fixtures/agent-orchestrator (see its NOTICE), and which of them
// Switchboard can run: the others carry a key it cannot honour (procedural type, capabilities, hooks, demands, or a
// registry `ref` MCP server).
import { join, resolve } from 'node:path';

/** A project folder holding `.agent-orchestrator/agents/…`. */
export const ORCHESTRATOR_PROJECT = resolve(import.meta.dirname, '../fixtures/agent-orchestrator/project');
export const ORCHESTRATOR_AGENTS = join(ORCHESTRATOR_PROJECT, '.agent-orchestrator/agents');

export const RUNNABLE_AGENTS = ['local-codebase-researcher', 'parametric-agent', 'prompt-assistant'];
export const REFUSED_AGENTS = [
  'agent-orchestrator',
  'current-working-directory',
  'high-demand-agent',
  'knowledge-coordinator',
  'structured-output-agent',
  'web-researcher',
];
