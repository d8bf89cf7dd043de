import { describe, expect, it } from 'vitest';
import { editDistance, nearestNames } from '../../src/core/nearest-names.ts';

describe('editDistance', () => {
  it('counts inserts, deletes, substitutions and swaps of neighbours as one edit each', () => {
    expect(editDistance('create', 'create')).toBe(0);
    expect(editDistance('craete', 'create')).toBe(1);
    expect(editDistance('tasks.craete', 'task.create')).toBe(2);
    expect(editDistance('task.lst', 'task.list')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('stops at the limit', () => {
    expect(editDistance('a'.repeat(5000), 'task.create', 3)).toBe(4);
    expect(editDistance('zzzzzzzzzzz', 'task.create', 2)).toBe(3);
  });
});

describe('nearestNames', () => {
  const known = ['task.create', 'task.list', 'task.claim', 'task.complete', 'system.health', 'everything.echo'];

  it('suggests the nearest names first, at most three', () => {
    expect(nearestNames('tasks.craete', known)).toEqual(['task.create']);
    expect(nearestNames('task.lst', known)).toEqual(['task.list']);
    expect(nearestNames('TASK.CREATE', known)).toEqual(['task.create']);
  });

  it('finds a name by its action alone', () => {
    expect(nearestNames('health', known)).toEqual(['system.health']);
  });

  it('suggests nothing for a name far from every known one', () => {
    expect(nearestNames('deploy.production', known)).toEqual([]);
    expect(nearestNames('x', known)).toEqual([]);
  });
});
