// test:random — two auto steps and one LLM step: the smallest complete compiled script.
import { auto, llm } from 'switchboard-mcp';

export default function* random() {
  const picked = yield auto(['shuf', '-i', '1-100', '-n', '1'], { why: 'pick a random number' });
  const n = Number(picked.output.trim());
  // A value from a step goes in an argument, never into a shell string.
  const doubled = yield auto(['echo', String(n * 2)], { why: 'double it' });
  yield llm(
    `The number ${n} doubled is ${doubled.output.trim()}. Say whether the doubled number is even or odd, and why.`,
    {
      expects: { parity: '"even" or "odd"' },
    },
  );
}
