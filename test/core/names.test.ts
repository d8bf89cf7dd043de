// Capability ↔ tool naming: dots to double underscores, the 64-character rule with a stable hash tail.
import { describe, expect, it } from 'vitest';
import { isCapabilityName, MAX_TOOL_NAME, toolNameOf, toSegment } from '../../src/core/names.ts';

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
