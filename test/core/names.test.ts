// Capability ↔ tool naming: dots to double underscores, the 64-character rule with a stable hash tail.
import { describe, expect, it } from 'vitest';
import { compareNames, isCapabilityName, MAX_TOOL_NAME, toolNameOf, toSegment } from '../../src/core/names.ts';

describe('toolNameOf', () => {
  it('turns every dot into a double underscore', () => {
    expect(toolNameOf('task.create')).toBe('task__create');
    expect(toolNameOf('a.b.c')).toBe('a__b__c');
  });

  it('keeps names of 64 characters and cuts longer ones with a stable 8-hex tail', () => {
    const exact = `d.${'x'.repeat(MAX_TOOL_NAME - 3)}`;
    expect(toolNameOf(exact)).toHaveLength(MAX_TOOL_NAME);
    const long = `domain.${'a'.repeat(80)}`;
    const cut = toolNameOf(long);
    expect(cut).toHaveLength(MAX_TOOL_NAME);
    expect(cut).toMatch(/_[0-9a-f]{8}$/);
    expect(toolNameOf(long)).toBe(cut);
    expect(toolNameOf(`domain.${'a'.repeat(79)}b`)).not.toBe(cut);
  });

  it('produces only [A-Za-z0-9_-]', () => {
    expect(toolNameOf('x.y')).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe('isCapabilityName', () => {
  it('accepts domain.action and single segments, refuses empty segments and odd characters', () => {
    expect(isCapabilityName('task.create')).toBe(true);
    expect(isCapabilityName('test_simple_text')).toBe(true);
    expect(isCapabilityName('task.')).toBe(false);
    expect(isCapabilityName('.x')).toBe(false);
    expect(isCapabilityName('has space.x')).toBe(false);
    expect(isCapabilityName('a/b')).toBe(false);
  });
});

describe('toSegment', () => {
  it('turns a plugin or server name into a name segment', () => {
    expect(toSegment('jutsu-typescript')).toBe('jutsu_typescript');
    expect(toSegment('--')).toBe('unnamed');
  });
});

describe('compareNames', () => {
  it('orders names exactly as localeCompare does', () => {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_-:.';
    // A seeded generator: the same pairs every run.
    let seed = 42;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const word = (max: number) =>
      Array.from({ length: 1 + Math.floor(next() * max) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(
        '',
      );
    for (let i = 0; i < 20_000; i++) {
      const a = word(10);
      const b = next() < 0.5 ? a.slice(0, Math.floor(next() * a.length)) + word(4) : word(10);
      expect([a, b, Math.sign(compareNames(a, b))]).toEqual([a, b, Math.sign(a.localeCompare(b))]);
    }
    const names = ['task.list', 'task_x', 'system.health', 'Task.Upper', 'ünicode.x', 'test:random', 'test-x'];
    expect([...names].sort(compareNames)).toEqual([...names].sort((a, b) => a.localeCompare(b)));
  });
});
