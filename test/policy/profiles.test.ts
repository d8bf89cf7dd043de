// Profiles on a real hub: the filter joins roles and [expose] in lists and calls, calls outside it name the
// profile, the selection rule (a bound token keeps its profile), and bad [profiles] tables are refused by key.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { listedTools } from '../../src/core/catalog/exposure.ts';
import type { Principal } from '../../src/core/context.ts';
import { profileFor } from '../../src/core/profile.ts';
import { makePrincipal } from '../../src/policy/principal.ts';
import { selectProfile } from '../../src/policy/profile-select.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';

const CONFIG = `
[expose]
deny = ["task.delete"]

[profiles.board]
allow = ["task.*"]
deny = ["task.assign"]
exposure = "search"
pin = ["task.list"]

[profiles.health]
allow = ["system.health"]
`;

function project(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-profiles-'));
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(join(dir, '.switchboard/config.toml'), config);
  return dir;
}

describe('profiles on the hub', () => {
  let hub: TestHub;
  let dir: string;
  // As the HTTP face builds a token's principal: roles, and [expose] as a filter.
  let agent: Principal;
  beforeAll(async () => {
    dir = project(CONFIG);
    hub = await testHub({ cwd: dir });
    agent = makePrincipal(hub.config.get(), undefined, { id: 'tok', roles: ['agent'], kind: 'token' });
  });
  afterAll(async () => {
    await hub?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const config = () => hub.config.get();
  // What the caller may see. The catalog's own tools pass every filter by design (they only reach what it lets
  // through), so they are left out here; what a list shows under the profile's exposure is checked below.
  const names = (p: Principal) =>
    hub.services.registry
      .list(p)
      .map((e) => e.capability.name)
      .filter((n) => !n.startsWith('catalog.'));
  const listedUnder = (p: Principal) => listedTools(hub.services.registry, config(), p).map((e) => e.capability.name);

  it('narrows the list to the profile, on top of [expose] and the roles', () => {
    const board = selectProfile(config(), agent, { requested: { name: 'board', via: '/mcp/board' } });
    const listed = names(board);
    expect(listed.length).toBeGreaterThan(3);
    expect(listed.every((n) => n.startsWith('task.'))).toBe(true);
    expect(listed).not.toContain('task.assign'); // the profile's deny
    expect(listed).not.toContain('task.delete'); // [expose] deny still holds under a profile that allows task.*
    // The profile's `exposure = "search"` and `pin` decide what tools/list shows: the pinned tool and the search tools.
    expect(listedUnder(board).sort()).toEqual([
      'catalog.call',
      'catalog.describe',
      'catalog.run',
      'catalog.search',
      'task.list',
    ]);
    expect(names(agent)).toContain('system.health');
    expect(profileFor({ principal: board })).toEqual({
      name: 'board',
      allow: ['task.*'],
      deny: ['task.assign'],
      exposure: 'search',
      pin: ['task.list'],
    });
    expect(profileFor({ principal: agent })).toBeUndefined();
  });

  it('answers a call outside the profile NOT_FOUND naming the profile; an unknown name says the profile too', async () => {
    const board = selectProfile(config(), agent, { requested: { name: 'board', via: '/mcp/board' } });
    const outside = await hub.call('system.health', {}, board);
    expect(!outside.ok && outside.error).toEqual({
      code: 'NOT_FOUND',
      message:
        "Tool 'system__health' is not in profile 'board': its allow/deny globs ([profiles.board]) leave it out. List the profile's tools with tools/list (or GET /v1/tools).".replace(
          'system__health',
          'system.health',
        ),
      details: { profile: 'board' },
    });
    const typo = await hub.call('task.lst', {}, board);
    expect(!typo.ok && typo.error.message).toMatch(
      /^Unknown tool 'task\.lst' in profile 'board'\. Did you mean 'task\.list'.*\? List the available tools with tools\/list \(or GET \/v1\/tools\)\.$/,
    );
    // A tool [expose] hides stays unknown: the profile is not what hides it.
    const hidden = await hub.call('task.delete', { id: 'x' }, board);
    expect(!hidden.ok && hidden.error.message).toMatch(/^Unknown tool 'task.delete' in profile 'board'\./);
    const inside = await hub.call('task.list', {}, board);
    expect(inside.ok).toBe(true);
  });

  it('a bound token keeps its profile: the same name is fine, another is FORBIDDEN, a removed one fails closed', () => {
    const bound = { name: 'health', by: "token 'tok'" };
    const same = selectProfile(config(), agent, { bound, requested: { name: 'health', via: '/mcp/health' } });
    expect(names(same)).toEqual(['system.health']);
    const alone = selectProfile(config(), agent, { bound });
    expect(names(alone)).toEqual(['system.health']);
    expect(() =>
      selectProfile(config(), agent, { bound, requested: { name: 'board', via: '/mcp/board' } }),
    ).toThrowError(
      expect.objectContaining({
        code: 'FORBIDDEN',
        message:
          "Token 'tok' is bound to profile 'health' and cannot use profile 'board' (/mcp/board); use /mcp/health or /mcp, or create a token for 'board'.",
      }),
    );
    expect(() => selectProfile(config(), agent, { bound: { name: 'gone', by: "token 'tok'" } })).toThrowError(
      expect.objectContaining({
        code: 'FORBIDDEN',
        message: expect.stringMatching(
          /^Token 'tok' is bound to profile 'gone', which the configuration no longer defines \(\[profiles\.gone\]\).*Known profiles: board, health\.$/,
        ),
      }),
    );
    expect(() => selectProfile(config(), agent, { requested: { name: 'nope', via: '/mcp/nope' } })).toThrowError(
      expect.objectContaining({
        code: 'NOT_FOUND',
        message: "No profile 'nope' (/mcp/nope). Known profiles: board, health.",
      }),
    );
  });
});

describe('[profiles] in the configuration', () => {
  const bad = (toml: string) => {
    const dir = project(toml);
    try {
      loadConfig(dir, { ...process.env, SWITCHBOARD_HOME: join(dir, '.home') });
      return 'loaded';
    } catch (err) {
      return (err as Error).message;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('refuses a profile name that cannot be a URL path, naming the key and the rule', () => {
    expect(bad('[profiles."code review"]\nallow = ["task.*"]\n')).toMatch(
      /profiles\.code review: profile name "code review" is invalid: a profile name is 1 to 64 characters from A-Z, a-z, 0-9, '_' and '-'/,
    );
  });

  it('refuses unknown keys, a bad exposure and globs that are not lists, naming each key', () => {
    expect(bad('[profiles.r]\nalow = ["x"]\n')).toMatch(/unknown key 'profiles\.r\.alow'/);
    expect(bad('[profiles.r]\nexposure = "some"\n')).toMatch(
      /profiles\.r\.exposure: Invalid option: expected one of "full"\|"search"/,
    );
    expect(bad('[profiles.r]\nallow = "task.*"\n')).toMatch(/profiles\.r\.allow: .*expected array/);
    expect(bad('[profiles.r]\npin = [""]\n')).toMatch(/profiles\.r\.pin\.0:/);
    expect(bad('[profiles.r]\nallow = ["task.*"]\n')).toBe('loaded');
  });
});
