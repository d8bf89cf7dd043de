// What Switchboard's MCP server says it is, on every door: its name and version, what it offers, and what every
// client is told at the handshake. The 2026-07-28 encoding stamps the identity into each result (tool-result.ts).
import { TASKS_EXTENSION } from '../core/mcp-tasks-extension.ts';
import { version } from '../version.ts';

export const SERVER_INFO = { name: 'switchboard', title: 'Switchboard', version };

/** What Switchboard's MCP server offers every client. */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
  // MCP's tasks extension: long calls answered as tasks (mcp-tasks.ts).
  extensions: { [TASKS_EXTENSION]: {} },
  // 2025-11-25's experimental tasks, for 2025 sessions (mcp-tasks-2025.ts); the 2026 encoding leaves it out.
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/** What every client is told at the handshake. */
export const INSTRUCTIONS =
  'Switchboard is an MCP hub. Read the resource switchboard://welcome for what is here. ' +
  'Tools are named domain__action (task__create, system__health). The task board (task__*) is shared by every agent.';
