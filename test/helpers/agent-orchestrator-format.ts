// Our own agents in agent-orchestrator's blueprint format (test/fixtures/agent-orchestrator-format), and which of
// them Switchboard can run: the others each carry one key it cannot honour (procedural type, hooks, demands) or need
// the library this fixture leaves out (a capability, a registry `ref` MCP server; the library cases write it). Their
// real agents are read in test/originals/agent-orchestrator.test.ts.
import { join, resolve } from 'node:path';

/** A project folder holding `.agent-orchestrator/agents/…`. */
export const FORMAT_PROJECT = resolve(import.meta.dirname, '../fixtures/agent-orchestrator-format/project');
export const FORMAT_AGENTS = join(FORMAT_PROJECT, '.agent-orchestrator/agents');

export const RUNNABLE_AGENTS = ['glossary-builder', 'haiku-writer', 'release-note-drafter'];
export const REFUSED_AGENTS = ['disk-report', 'gpu-batch', 'notes-curator', 'review-with-followup', 'ticket-triager'];
