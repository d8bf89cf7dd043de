// test:nested — an auto step, a nested compiled script, an LLM step, and a last auto step.
import { auto, callScript, llm } from 'switchboard-mcp';

export default function* nested() {
  yield auto(['echo', 'nested:', 'start'], { why: 'mark the start' });
  yield callScript('test:random');
  yield llm('Summarise in one sentence what test:random did.', { expects: { summary: 'one sentence' } });
  yield auto(['echo', 'nested:', 'done'], { why: 'mark the end' });
}
