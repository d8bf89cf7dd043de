// Search quality on the benchmark's catalog: the demo workspace plus four real upstream servers (started over
// stdio, offline), and the benchmark's fixed set of tasks written as a user would ask them. The right tool must be
// in the top 3 for at least 90 % of the tasks and first for at least 70 % (issue 19) — 69 % since issue 33: the hub's
// own tools now count less unless a request names their domain, which lifted the public held-out sets (LiveMCPBench
// 44 % → 63 % first, MetaTool 35 % → 39 %) and cost this tuned set one task (39 → 37 of 53 first). Quality only: the
// latency is measured by bench/catalog.mjs, never here.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scoreSearch, TASKS } from '../../../bench/catalog-tasks.mjs';
import { catalogWorkspace, UPSTREAMS } from '../../../bench/lib/catalog-workspace.mjs';
import { ADMIN, type TestHub, testHub } from '../../helpers/hub.ts';

describe('catalog.search on the benchmark catalog', () => {
  const dir = catalogWorkspace();
  let hub: TestHub;
  beforeAll(async () => {
    hub = await testHub({ cwd: dir });
    await hub.ready();
  }, 120_000);
  afterAll(async () => {
    await hub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has every upstream server and the demo workspace in the catalog', () => {
    const names = hub.services.registry.list(ADMIN).map((e) => e.tool.name);
    for (const { name } of UPSTREAMS) expect(names.some((n) => n.startsWith(`${name}__`))).toBe(true);
    expect(names).toEqual(expect.arrayContaining(['jutsu_javascript__test', 'notes__add', 'task__create']));
    expect(names.length).toBeGreaterThan(150);
    expect(TASKS.length).toBeGreaterThanOrEqual(40);
  });

  it('puts the right tool in the top 3 for ≥ 90 % of the tasks and first for ≥ 69 %', async () => {
    const { rows, top1, top3 } = await scoreSearch(async (query) => {
      const { tools } = await hub.value('catalog.search', { query, limit: 3 });
      return tools.map((t: { name: string }) => t.name);
    });
    const misses = rows
      .filter((r) => r.rank !== 1)
      .map((r) => `${r.query} → ${r.names.join(', ')} (want ${r.expected.join(' | ')})`)
      .join('\n');
    expect(top3, `top 3: ${top3}\n${misses}`).toBeGreaterThanOrEqual(0.9);
    expect(top1, `top 1: ${top1}\n${misses}`).toBeGreaterThanOrEqual(0.69);
  });
});
