// Code mode (issue 33 §2): one multi-step job on the task board done the way a model does it with direct tool calls,
// and with one `catalog__run` program. Counted: the model's round trips (tool calls; each is one more model request),
// the bytes of tool results it reads and of arguments it writes, over the built CLI on stdio with the official SDK
// client. Tokens are estimated as bytes ÷ 4. Usage: `node bench/code-mode.mjs` after `npm run build`. Prints
// Markdown for BENCHMARKS.md; never part of `npm test`.
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { machine } from './lib/proc.mjs';
import { BIN, switchboardEnv, tempProject } from './lib/servers.mjs';

const TYPES = ['fix', 'docs', 'refactor', 'research', 'implementation'];
const tokensOf = (bytes) => Math.round(bytes / 4);
const bytesOf = (v) => Buffer.byteLength(typeof v === 'string' ? v : JSON.stringify(v));
const log = (msg) => process.stderr.write(`[code-mode bench] ${msg}\n`);

/** What a client hands its model of a tool result: the text of its content blocks. */
const resultText = (result) => result.content.map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('\n');

/** A fresh hub over stdio, with 50 tasks on its board (set up directly: not part of the job). */
async function boardWith50() {
  const dir = tempProject();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--cwd', dir, 'serve'],
    env: switchboardEnv(dir),
    stderr: 'inherit',
  });
  const client = new Client({ name: 'code-mode-bench', version: '1.0.0' });
  await client.connect(transport);
  for (let i = 1; i <= 50; i++)
    await client.callTool({
      name: 'task__create',
      arguments: {
        text: `Task ${i}: ${TYPES[i % 5]} work on module ${i}`,
        priority: (i * 37) % 100,
        type: TYPES[i % 5],
      },
    });
  return {
    client,
    async close() {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The job's rule: the five highest-priority `fix` tasks of priority 40 or more get priority 100 and an [urgent] mark. */
const pick = (tasks) => tasks.filter((t) => t.type === 'fix' && t.priority >= 40).slice(0, 5);

/** The model's way with direct calls: list, read everything, update each of the five, write the summary itself. */
async function direct() {
  const hub = await boardWith50();
  const steps = [];
  const call = async (name, args) => {
    const result = await hub.client.callTool({ name, arguments: args });
    const text = resultText(result);
    steps.push({ name, written: bytesOf(args), read: bytesOf(text) });
    return JSON.parse(text);
  };
  const started = performance.now();
  const { tasks } = await call('task__list', { limit: 50 });
  const chosen = pick(tasks);
  for (const t of chosen) await call('task__update', { id: t.id, priority: 100, text: `[urgent] ${t.text}` });
  const ms = performance.now() - started;
  await hub.close();
  return { steps, ms, updated: chosen.length };
}

const PROGRAM = `const { tasks } = await tools.task__list({ limit: 50 });
const chosen = tasks.filter((t) => t.type === 'fix' && t.priority >= 40).slice(0, 5);
for (const t of chosen) await tools.task__update({ id: t.id, priority: 100, text: \`[urgent] \${t.text}\` });
const byType: Record<string, number> = {};
for (const t of tasks) byType[t.type ?? 'none'] = (byType[t.type ?? 'none'] ?? 0) + 1;
return { total: tasks.length, byType, updated: chosen.map((t) => ({ id: t.id, was: t.priority })) };`;

const READ_ONLY =
  "const { tasks } = await tools.task__list({ limit: 50 });\nreturn tasks.filter((t) => t.type === 'fix').length;";

/** The same job as one program; `describeFirst`: the model first reads the two tools' declarations. */
async function codeMode(describeFirst) {
  const hub = await boardWith50();
  const steps = [];
  const call = async (name, args) => {
    const result = await hub.client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(resultText(result));
    steps.push({ name, written: bytesOf(args), read: bytesOf(resultText(result)) });
    return result;
  };
  const started = performance.now();
  if (describeFirst) for (const name of ['task__list', 'task__update']) await call('catalog__describe', { name });
  const result = await call('catalog__run', { code: PROGRAM });
  const ms = performance.now() - started;
  // Later programs on the same hub: the first one also loads esbuild and compiles the engine's WebAssembly.
  const warm = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await hub.client.callTool({ name: 'catalog__run', arguments: { code: READ_ONLY } });
    warm.push(performance.now() - t);
  }
  warm.sort((a, b) => a - b);
  await hub.close();
  return { steps, ms, value: result.structuredContent.value, warmP50: warm[10], warmMax: warm.at(-1) };
}

const total = (steps, key) => steps.reduce((sum, s) => sum + s[key], 0);
const row = (label, r) =>
  `| ${label} | ${r.steps.length} | ${r.steps.length + 1} | ${total(r.steps, 'read').toLocaleString('en')} (~${tokensOf(total(r.steps, 'read')).toLocaleString('en')}) | ${total(r.steps, 'written').toLocaleString('en')} (~${tokensOf(total(r.steps, 'written')).toLocaleString('en')}) | ${r.ms.toFixed(0)} |`;

log('direct calls…');
const d = await direct();
log('one catalog__run…');
const c = await codeMode(false);
log('describe ×2, then one catalog__run…');
const cd = await codeMode(true);
if (c.value.updated.length !== d.updated) throw new Error('the two ways updated different numbers of tasks');

const m = machine();
console.log(
  `Date: ${new Date().toISOString()} · ${m.cpu}, ${m.cores} cores, ${m.memGb} GB · Node ${m.node} · ${m.platform}`,
);
console.log('Command: `npm run build && node bench/code-mode.mjs`\n');
console.log(
  '| way | tool calls | model requests | tool results the model reads, bytes (~tokens) | arguments it writes, bytes (~tokens) | wall ms (tools only) |',
);
console.log('|---|---|---|---|---|---|');
console.log(row('direct calls: task__list, 5 × task__update', d));
console.log(row('one `catalog__run`', c));
console.log(row('`catalog__describe` ×2, then one `catalog__run`', cd));
console.log(
  `\nA \`catalog__run\` of one \`task__list\` and a filter, 20 more times on the same hub: p50 ${c.warmP50.toFixed(1)} ms, max ${c.warmMax.toFixed(1)} ms (the first program of a hub also starts esbuild and compiles the engine).`,
);
console.log(`\nThe program's answer (${bytesOf(c.value)} bytes): \`${JSON.stringify(c.value)}\``);
