// docs/configuration.md says which keys a `[policy.tokens.NAME]` table takes; the loader is the judge. Each key the
// reference table and the example name must load, and each key the loader refuses must not be offered.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { configProject } from '../helpers/config-project.ts';

const doc = readFileSync(join(import.meta.dirname, '../../docs/configuration.md'), 'utf8');

/** A valid value for every key a limits table can hold (capability tables take all of them). */
const SAMPLES: Record<string, string> = {
  timeout_ms: '1000',
  rate_limit: '{ limit = 1, window_ms = 1000 }',
  breaker: '{ threshold = 1, reset_ms = 1, half_open_probes = 1 }',
  cache_ms: '0',
  expose: '{ allow = ["task.*"] }',
};

function loads(key: string): true | string {
  const { dir, env } = configProject(`[policy.tokens.ci-bot]\n${key} = ${SAMPLES[key]}\n`);
  try {
    loadConfig(dir, env);
    return true;
  } catch (err) {
    return (err as Error).message;
  }
}

describe('[policy.tokens.NAME] in docs/configuration.md', () => {
  const row = doc.split('\n').find((l) => l.startsWith('| `policy.tokens.NAME` |')) as string;
  const offered = [...(row.split('|')[2] ?? '').matchAll(/(\w+)\?/g)].map((m) => m[1]);
  const example = doc.split('\n').find((l) => l.startsWith('[policy.tokens.')) ?? '';
  const exampleLine = doc.split('\n')[doc.split('\n').indexOf(example) + 1] ?? '';
  const exampleKeys = (exampleLine.split('# any of:')[1] ?? '').split(',').map((k) => k.trim());

  it('offers in its reference row only keys the loader accepts for a token', () => {
    expect(offered.length).toBeGreaterThan(0);
    for (const key of offered) expect([key, loads(key)]).toEqual([key, true]);
  });

  it('lists in its example only keys the loader accepts, without caveats', () => {
    expect(exampleKeys.length).toBeGreaterThan(0);
    for (const key of exampleKeys) expect([key, key in SAMPLES && loads(key)]).toEqual([key, true]);
  });

  it('says that the keys a token cannot take are refused, and the loader refuses them naming the key', () => {
    const refused = Object.keys(SAMPLES).filter((k) => !offered.includes(k));
    expect(refused).toEqual(['breaker', 'cache_ms']);
    for (const key of refused) {
      expect(loads(key)).toMatch(new RegExp(`unknown key 'policy\\.tokens\\.ci-bot\\.${key}'`));
      expect(row).toContain(`\`${key}\``);
    }
    expect(row).not.toMatch(/accepted but not applied/);
  });
});
