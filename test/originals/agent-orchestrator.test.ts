// agent-orchestrator's own agent blueprints (../shared/originals/agent-orchestrator, see its NOTICE) in a project's
// .agent-orchestrator/agents, as Switchboard reads them in place (hub: listed, tag-filtered, started with their
// parameters, their output_schema, a name clash, no grants) and as `switchboard agents import` copies them (the built
// CLI): the three it can run work, the six others are refused naming the file and key. The cases are written once, in
// test/sources/agents/orchestrator-cases.ts and test/e2e/agents-import-cases.ts, and run on our own agents in that
// format by test/sources/agents/agent-orchestrator.test.ts and test/e2e/agents-import.test.ts.
import { join } from 'node:path';
import { describe } from 'vitest';
import { importCases } from '../e2e/agents-import-cases.ts';
import { original } from '../helpers/originals.ts';
import { type OrchestratorSet, orchestratorHubCases } from '../sources/agents/orchestrator-cases.ts';

/** Their project folder: `.agent-orchestrator/agents/<name>/…`, nine agents. */
const PROJECT = original('agent-orchestrator', 'project');
const AGENTS = join(PROJECT, '.agent-orchestrator/agents');

// Which of their agents Switchboard can run; each of the others has one key it cannot honour (procedural type,
// capabilities, hooks, demands, or a registry `ref` MCP server).
const RUNNABLE = ['local-codebase-researcher', 'parametric-agent', 'prompt-assistant'];
const REFUSED = [
  'agent-orchestrator',
  'current-working-directory',
  'high-demand-agent',
  'knowledge-coordinator',
  'structured-output-agent',
  'web-researcher',
];

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
    capabilities: 'web-researcher',
    demands: 'high-demand-agent',
  },
  registryRef: {
    agent: 'knowledge-coordinator',
    server: 'context-store',
    namedIn: 'agent-orchestrator',
    registryFile: '.agent-orchestrator/mcp-servers/orchestrator/mcp-server.json',
  },
  tags: {
    cases: [
      [['internal'], RUNNABLE],
      [['internal', 'example'], ['parametric-agent']],
      [['external'], []],
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
    registryRef: { agent: 'knowledge-coordinator', server: 'context-store' },
    parametric: 'parametric-agent',
  };

  importCases(imported, {
    params: ['topic=Retry storms', 'format=summary', 'max_words=120'],
    inputs: '<inputs>\ntopic: Retry storms\nformat: summary\nmax_words: 120\n</inputs>',
    bad: ['topic=AI', 'format=poem'],
    refusal: 'parameters.format: must be equal to one of the allowed values',
  });
});
