// The 471 servers the official MCP registry was seeded with (../shared/datasets/mcp-registry, the 2025-05 shape),
// converted to server.json in the current schema and served by the stand-in registry: each one either becomes a
// `[[servers]]` entry that the configuration schema accepts, or is refused with its reasons — counted, none skipped.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerSchema } from '../../src/config/schema-servers.ts';
import { RegistryClient } from '../../src/registry/client.ts';
import { localName, pickEntry, Refusal } from '../../src/registry/pick.ts';
import { runCli, tempProject } from '../helpers/cli.ts';
import { dataset } from '../helpers/originals.ts';
import { type RegistryStandIn, startRegistry } from '../helpers/registry-stand-in.ts';

type Seed = {
  name: string;
  description: string;
  version_detail: { version: string };
  packages?: Array<{
    registry_name: string;
    name: string;
    version: string;
    package_arguments?: Array<Record<string, unknown>>;
    environment_variables?: Array<{ name: string; description?: string }>;
  }>;
  remotes?: Array<{ transport_type: string; url: string }>;
};

/** An old argument (snake_case) in the current camelCase shape. */
const argument = (a: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries({
      type: a.type,
      name: a.name,
      value: a.value,
      default: a.default,
      description: a.description,
      format: a.format,
      isRequired: a.is_required,
      valueHint: a.value_hint,
    }).filter(([, v]) => v !== undefined && v !== ''),
  );

/**
 * One seed entry as a current server.json: `docker` → `oci` (its arguments were `docker run` arguments, so they
 * become runtime arguments), a version of "" left out, every listed variable required (the old shape had no
 * is_required: a variable was listed because the server needs it), secret when named like one.
 */
function current(seed: Seed) {
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name: seed.name,
    description: seed.description,
    version: seed.version_detail.version,
    packages: (seed.packages ?? []).map((p) => {
      const oci = p.registry_name === 'docker';
      const args = (p.package_arguments ?? []).map(argument);
      return {
        registryType: oci ? 'oci' : p.registry_name,
        identifier: p.name,
        ...(p.version ? { version: p.version } : {}),
        transport: { type: 'stdio' },
        ...(oci && args.length ? { runtimeHint: 'docker', runtimeArguments: args } : {}),
        ...(!oci && args.length ? { packageArguments: args } : {}),
        environmentVariables: (p.environment_variables ?? []).map((v) => ({
          name: v.name,
          description: v.description,
          isRequired: true,
          isSecret: /KEY|TOKEN|SECRET|PASSWORD/i.test(v.name),
        })),
      };
    }),
    remotes: (seed.remotes ?? []).map((r) => ({
      type: r.transport_type === 'sse' ? 'sse' : 'streamable-http',
      url: r.url,
    })),
  };
}

const all = JSON.parse(readFileSync(dataset('mcp-registry', 'seed_2025_05_16.json'), 'utf8')) as Seed[];
// Seven records of the seed are empty (no name, no version, nothing else): not servers, and no registry serves them.
const seeds = all.filter((s) => s.name);
let registry: RegistryStandIn;
beforeAll(async () => {
  registry = await startRegistry(seeds.map(current));
});
afterAll(() => registry.close());

describe('the registry seed (471 real servers) through the stand-in registry', () => {
  it('every server becomes a valid entry or a refusal with reasons, on a machine with every runtime', async () => {
    const client = new RegistryClient({ url: registry.url, cacheMs: 0, env: { SWITCHBOARD_CACHE_DIR: tempProject() } });
    const added: string[] = [];
    const refused = new Map<string, string[]>();
    for (const seed of seeds) {
      const found = await client.server(seed.name);
      expect(found?.server.name, seed.name).toBe(seed.name);
      try {
        const picked = pickEntry(found!.server, { name: localName(seed.name), onPath: () => true });
        const checked = ServerSchema.safeParse(picked.entry);
        expect(checked.error?.message, seed.name).toBeUndefined();
        expect(checked.data?.approval).toBe('manual');
        added.push(seed.name);
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        refused.set(seed.name, err.reasons);
      }
    }
    expect(all.length - seeds.length).toBe(7);
    expect(added.length + refused.size).toBe(seeds.length);
    // Why the refused were refused: every reason is one of the known ones.
    const why = new Map<string, number>();
    for (const reasons of refused.values())
      for (const r of reasons.length ? reasons : ['no package and no remote']) {
        const kind = /not a package type Switchboard knows/.test(r)
          ? 'unknown package type'
          : /no version to pin/.test(r)
            ? 'no version to pin'
            : /no tag or digest and no version/.test(r)
              ? 'unpinned image'
              : r === 'no package and no remote'
                ? r
                : `other: ${r}`;
        why.set(kind, (why.get(kind) ?? 0) + 1);
      }
    expect([...why.keys()].filter((k) => k.startsWith('other'))).toEqual([]);
    expect({ added: added.length, refused: refused.size, why: Object.fromEntries(why) }).toEqual({
      added: 149,
      refused: 315,
      // The seed's `unknown` registry (296 packages), npm/pypi packages with a version of "", docker ones too.
      why: { 'unknown package type': 296, 'no version to pin': 13, 'unpinned image': 6 },
    });
  });

  it('on a machine with no runtime at all, only servers with a remote are added', async () => {
    const client = new RegistryClient({ url: registry.url, cacheMs: 0, env: { SWITCHBOARD_CACHE_DIR: tempProject() } });
    let remotes = 0;
    for (const seed of seeds) {
      const server = (await client.server(seed.name))!.server;
      try {
        expect(
          pickEntry(server, { name: localName(seed.name), onPath: () => false }).entry.url,
          seed.name,
        ).toBeDefined();
        remotes++;
      } catch (err) {
        expect(err, seed.name).toBeInstanceOf(Refusal);
        expect((err as Refusal).message, seed.name).toMatch(/cannot be set up on this machine:\n {2}- /);
      }
    }
    expect(remotes).toBe(seeds.filter((s) => s.remotes?.length).length);
  });

  it('through the CLI: a real npm server added, one from the unknown registry of the seed refused, a search', async () => {
    const dir = tempProject();
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    for (const c of ['npx', 'uvx', 'docker']) {
      writeFileSync(join(bin, c), '#!/bin/sh\nexit 0\n');
      chmodSync(join(bin, c), 0o755);
    }
    mkdirSync(join(dir, '.switchboard'));
    writeFileSync(join(dir, '.switchboard/config.toml'), `[registry]\nurl = "${registry.url}"\n`);
    const env = { HOME: join(dir, 'home'), PATH: bin, SWITCHBOARD_CACHE_DIR: join(dir, 'cache') };
    const run = (args: string[]) => runCli(dir, args, { env });
    const npm = await run(['mcp', 'add', '--from-registry', 'io.github.21st-dev/magic-mcp']);
    expect(npm.stdout).toContain('npm @21st-dev/magic@0.0.46 (npx)');
    expect(npm.stdout).toMatch(/API_KEY\s+secret, env — \$\{input:apiKey\}/);
    const unknown = await run(['mcp', 'add', '--from-registry', 'io.github.tinyfish-io/agentql-mcp']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown agentql-mcp@1.0.0: 'unknown' is not a package type Switchboard knows");
    const search = JSON.parse((await run(['mcp', 'search', 'github', '--json', '--limit', '100'])).stdout);
    expect(search.total).toBeGreaterThan(5);
  });
});
