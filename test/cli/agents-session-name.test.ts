// `agents run` without --session always starts a new session: the default name has the second the run started
// in, and a run in a second whose name is taken gets the next free suffix instead of resuming that session.
import { describe, expect, it } from 'vitest';
import { newSessionName } from '../../src/cli/agents.ts';

const NOW = new Date('2026-11-27T12:08:14.123Z');

describe('the session name of a run without --session', () => {
  it('is the agent and the second it started in', async () => {
    expect(await newSessionName(async () => false, 'planner', NOW)).toBe('planner-20261127-120814');
  });

  it('takes the next free suffix when that name is taken in the same second', async () => {
    const taken = new Set(['planner-20261127-120814', 'planner-20261127-120814-2']);
    expect(await newSessionName(async (n) => taken.has(n), 'planner', NOW)).toBe('planner-20261127-120814-3');
  });

  it('stays within the 60 characters of a session name, suffix included', async () => {
    const agent = 'a'.repeat(70);
    const first = await newSessionName(async () => false, agent, NOW);
    const next = await newSessionName(async (n) => n === first, agent, NOW);
    expect(first).toHaveLength(60);
    expect(next).toHaveLength(60);
    expect(next.endsWith('-120814-2')).toBe(true);
  });
});
