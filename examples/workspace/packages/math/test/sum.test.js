import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sum } from '../src/sum.js';

test('adds every number', () => {
  assert.equal(sum([1, 2, 3]), 6);
});
