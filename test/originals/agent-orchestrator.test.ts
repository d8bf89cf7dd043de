// agent-orchestrator's own agent blueprints (../shared/originals/agent-orchestrator, see its NOTICE) in a project's
// .agent-orchestrator/agents, beside a library of our own in its format (the MCP server registry entries and the
// capability they use: its real ones are not among the shared files), as Switchboard reads them in place (hub:
// listed, tag-filtered, started with their parameters, their output_schema, their ref servers and capability, a name
// clash, no grants) and as `switchboard agents import` copies them (the built CLI). Which run and which are refused,
// and why, is RUNNABLE and REFUSED below. The cases are written once, in test/sources/agents/orchestrator-cases.ts and
// test/e2e/agents-import-cases.ts, and run on our own agents in that format by
// test/sources/agents/agent-orchestrator.test.ts and test/e2e/agents-import.test.ts.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe } from 'vitest';
import { importCases } from '../e2e/agents-import-cases.ts';
import { original } from '../helpers/originals.ts';
import {
  type LibraryRun,
  type OrchestratorSet,
  orchestratorHubCases,
  writeLibrary,
} from '../sources/agents/orchestrator-cases.ts';

/**
 * Their registry entry and capability that these agents use, as ours: knowledge-coordinator refs `context-store` and
 * `orchestrator` (the orchestrator's own MCP server), web-researcher lists the `context-store` capability.
 */
const LIBRARY: LibraryRun = {
  registry: 'context-store',
  refAgent: { name: 'knowledge-coordinator', server: 'context-store' },
  capAgent: {
    name: 'web-researcher',
    capability: 'context-store',
    server: 'context-store',
    parameters: { question: 'What is backpressure in message queues?' },
  },
};

/** Their project folder (`.agent-orchestrator/agents/<name>/…`, nine agents) with our library beside the agents. */
const PROJECT = mkdtempSync(join(tmpdir(), 'switchboard-ao-originals-'));
cpSync(original('agent-orchestrator', 'project'), PROJECT, { recursive: true });
writeLibrary(PROJECT, LIBRARY, 'http://127.0.0.1:9/mcp');
afterAll(() => rmSync(PROJECT, { recursive: true, force: true }));
const AGENTS = join(PROJECT, '.agent-orchestrator/agents');

/**
 * What runs after issue 34: their three plain agents, and the three whose `ref` servers (agent-orchestrator,
 * knowledge-coordinator) and capability (web-researcher) are resolved from the library.
 */
const RUNNABLE = [
  'agent-orchestrator',
  'knowledge-coordinator',
  'local-codebase-researcher',
  'parametric-agent',
  'prompt-assistant',
  'web-researcher',
];
/** Refused, each for a key with no equivalent in Switchboard (the messages are checked in the cases). */
const REFUSED = [
  'current-working-directory', // "type": "procedural": runs its runner's script, not a model session
  'high-demand-agent', // "demands": no runners to match
  'structured-output-agent', // "hooks": no agent started when a run starts or finishes
];
const MERGED = ['agent-orchestrator', 'knowledge-coordinator', 'web-researcher'];

const SET: OrchestratorSet = {
  project: PROJECT,
  agents: AGENTS,
  runnable: RUNNABLE,
  refused: REFUSED,
  parametric: { name: 'parametric-agent', tags: ['internal', 'example'] },
  structured: 'prompt-assistant',
  refusedFor: {
    procedural: 'current-working-directory',
    hooks: 'structured-output-agent',
    demands: 'high-demand-agent',
  },
  library: LIBRARY,
  tags: {
    cases: [
      [['internal'], RUNNABLE.filter((n) => n !== 'knowledge-coordinator')],
      [['internal', 'example'], ['parametric-agent']],
      [['external'], ['agent-orchestrator']],
    ],
    shown: { tag: 'research', agent: 'local-codebase-researcher' },
  },
  // The <inputs> block its system prompt asks for.
  start: {
    session: 'content-1',
    parameters: { topic: 'Backpressure in message queues', format: 'outline', max_words: 350, audience: 'technical' },
    inputs:
      '<inputs>\ntopic: Backpressure in message queues\nformat: outline\nmax_words: 350\naudience: technical\n</inputs>',
  },
  badParameters: {
    cases: [
      [
        'parametric-agent',
        { topic: 'AI', format: 'poem' },
        'parameters.format: must be equal to one of the allowed values ["summary","bullet_points","essay","outline"]',
      ],
      ['parametric-agent', { format: 'essay' }, 'parameters.topic: required'],
      ['parametric-agent', { topic: 'AI', format: 'essay', max_words: 10 }, 'parameters.max_words: must be >= 50'],
      [
        'parametric-agent',
        { topic: 'AI', format: 'essay', tone: 'dry' },
        'parameters.tone: not a parameter of this agent (it takes: topic, format, max_words, audience)',
      ],
      [
        'local-codebase-researcher',
        { question: 'short', project_dir: '/x' },
        'parameters.question: must NOT have fewer than 10 characters',
      ],
    ],
    required: 'topic',
  },
  structuredRun: {
    parameters: { user_request: 'A prompt for a code reviewer' },
    prompt: 'Keep it short.',
    inputs: '<inputs>\nuser_request: A prompt for a code reviewer\n</inputs>',
    missing: '{"remarks": "no prompt"}',
    output: { system_prompt: 'You review code.', remarks: 'new' },
    required: 'system_prompt',
  },
  shellParameters: { topic: 'AI', format: 'essay' },
};

describe("agent-orchestrator's own agents in .agent-orchestrator/agents", () => {
  orchestratorHubCases(SET);
});

describe("agents import --from agent-orchestrator on agent-orchestrator's own agents", () => {
  const imported = {
    project: PROJECT,
    agents: AGENTS,
    runnable: RUNNABLE,
    refused: REFUSED,
    hooksAgent: 'structured-output-agent',
    merged: MERGED,
    parametric: 'parametric-agent',
  };

  importCases(imported, {
    params: ['topic=Retry storms', 'format=summary', 'max_words=120'],
    inputs: '<inputs>\ntopic: Retry storms\nformat: summary\nmax_words: 120\n</inputs>',
    bad: ['topic=AI', 'format=poem'],
    refusal: 'parameters.format: must be equal to one of the allowed values',
  });
});
