// Picking a registry server's package for this machine and turning what it asks for into `${VAR}` references.
import { describe, expect, it } from 'vitest';
import { ServerSchema } from '../../src/config/schema-servers.ts';
import { localName, pickEntry, Refusal } from '../../src/registry/pick.ts';
import { type ServerJson, ServerJsonSchema } from '../../src/registry/schema.ts';
import { envName } from '../../src/registry/values.ts';
import { REGISTRY_FIXTURES } from '../helpers/registry-stand-in.ts';

const fixtures = REGISTRY_FIXTURES().map((d) => ServerJsonSchema.parse(d));
const fixture = (name: string, version?: string) =>
  fixtures.filter((f) => f.name === name && (!version || f.version === version)).at(-1) as ServerJson;
const everywhere = () => true;
const only =
  (...commands: string[]) =>
  (c: string) =>
    commands.includes(c);

describe('registry package picking', () => {
  it('names a server after the last segment of its registry name, made a valid server name', () => {
    expect(localName('io.github.acme/weather')).toBe('weather');
    expect(localName('io.github.21st-dev/magic-mcp')).toBe('magic-mcp');
    expect(localName('com.example/mcp.server.v2')).toBe('mcp-server-v2');
    expect(localName(`x.y/${'a'.repeat(80)}`)).toHaveLength(64);
    expect(envName('api-key')).toBe('API_KEY');
    expect(envName('--read-only')).toBe('READ_ONLY');
    expect(envName('2fa.code')).toBe('_2FA_CODE');
  });

  it('npm: npx -y with the version pinned; required env as ${VAR}, defaults as ${VAR:-default}, the rest named', () => {
    const picked = pickEntry(fixture('io.github.acme/weather'), { name: 'weather', onPath: everywhere });
    expect(picked.entry).toEqual({
      name: 'weather',
      command: 'npx',
      args: ['-y', '@acme/weather-mcp@1.4.0', '--transport', 'stdio'],
      env: { WEATHER_API_KEY: '${WEATHER_API_KEY}', WEATHER_CACHE_TTL: '${WEATHER_CACHE_TTL:-600}' },
      approval: 'manual',
    });
    expect(picked.summary).toBe('npm @acme/weather-mcp@1.4.0 (npx)');
    expect(picked.variables.map((v) => [v.name, v.required, v.secret])).toEqual([
      ['WEATHER_API_KEY', true, true],
      ['WEATHER_CACHE_TTL', false, false],
      ['WEATHER_LOG', false, false],
    ]);
    expect(picked.variables[2].where).toMatch(/not written/);
    expect(ServerSchema.safeParse(picked.entry).success).toBe(true);
  });

  it('pypi: uvx NAME@VERSION; a required positional argument without a value becomes a reference', () => {
    const picked = pickEntry(fixture('io.github.acme/notes'), { name: 'notes', onPath: everywhere });
    expect(picked.entry).toMatchObject({
      command: 'uvx',
      args: ['notes-mcp@0.6.2', '${NOTES_DIR}'],
      env: { NOTES_SYNC_TOKEN: '${NOTES_SYNC_TOKEN}' },
    });
    expect(picked.variables.find((v) => v.name === 'NOTES_DIR')).toMatchObject({
      required: true,
      where: 'argument notes_dir',
    });
  });

  it('oci: docker run -i --rm, each variable passed with -e, runtime arguments before the image; podman when it is the one here', () => {
    const search = fixture('com.example/search');
    const docker = pickEntry(search, { name: 'search', onPath: everywhere });
    expect(docker.entry).toMatchObject({
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '-e',
        'SEARCH_API_KEY',
        '-e',
        'SEARCH_INDEX',
        '--network',
        'host',
        'ghcr.io/example/search-mcp:2.1.0',
      ],
      // A fixed value's {variable} with a default: the default, overridable.
      env: { SEARCH_API_KEY: '${SEARCH_API_KEY}', SEARCH_INDEX: 'wiki-${SEARCH_REGION:-eu}' },
    });
    const podman = pickEntry(search, { name: 'search', onPath: only('podman') });
    expect(podman.entry.command).toBe('podman');
    // Runtime arguments written for docker are left out for podman, and that is said.
    expect(podman.entry.args).not.toContain('--network');
    expect(podman.notes.join()).toMatch(/runtime arguments are for docker, not podman/);
    // An image without a tag takes the package version; without either it is refused as unpinned.
    const untagged = {
      ...search,
      packages: [{ ...search.packages![0], identifier: 'example/search', version: '2.0' }],
    };
    expect(pickEntry(untagged, { name: 's', onPath: everywhere }).entry.args).toContain('example/search:2.0');
    const unpinned = { ...search, packages: [{ ...search.packages![0], identifier: 'example/search' }] };
    expect(() => pickEntry(unpinned, { name: 's', onPath: everywhere })).toThrow(/no tag or digest/);
  });

  it('remote: url and headers with {variables} as prefixed references; sse kept as the transport', () => {
    const tickets = pickEntry(fixture('com.example/tickets'), { name: 'tickets', onPath: everywhere });
    expect(tickets.entry).toEqual({
      name: 'tickets',
      url: 'https://${TICKETS_TENANT}.tickets.example.com/mcp',
      headers: { Authorization: 'Bearer ${TICKETS_API_KEY}', 'X-Client': 'switchboard' },
      approval: 'manual',
    });
    expect(tickets.variables.map((v) => [v.name, v.secret, v.where])).toEqual([
      ['TICKETS_TENANT', false, 'url'],
      ['TICKETS_API_KEY', true, 'header Authorization'],
    ]);
    const sse = pickEntry(fixture('io.github.acme/weather'), { name: 'weather', kind: 'remote', onPath: everywhere });
    expect(sse.entry).toEqual({
      name: 'weather',
      url: 'https://mcp.weather.example.com/sse',
      transport: 'sse',
      headers: { 'X-API-Key': '${WEATHER_X_API_KEY}' },
      approval: 'manual',
    });
    expect(ServerSchema.safeParse(sse.entry).success).toBe(true);
  });

  it('takes the next offer when a runtime is missing, and says why the first was passed over', () => {
    const picked = pickEntry(fixture('io.github.acme/weather'), { name: 'weather', onPath: only('uvx') });
    expect(picked.entry.url).toBe('https://mcp.weather.example.com/sse');
    expect(picked.notes).toEqual([
      'not picked: npm @acme/weather-mcp@1.4.0: npx is not on PATH (install Node.js (https://nodejs.org))',
    ]);
  });

  it('refuses with every offer and its reason when nothing can run here', () => {
    const cases: Array<[ServerJson, string, RegExp]> = [
      [fixture('io.github.acme/mind-map'), '', /mcpb .*: an MCPB bundle is a file to download/],
      [fixture('io.github.acme/notes'), '', /pypi notes-mcp@0.6.2: uvx is not on PATH \(install uv/],
      [fixture('com.example/search'), '', /oci ghcr.io\/example\/search-mcp:2.1.0: docker or podman is not on PATH/],
      [fixture('com.example/tickets'), 'npm', /offers no npm package or remote; it offers: remote streamable-http/],
      [{ ...fixture('io.github.acme/notes'), packages: [] }, '', /lists no package and no remote/],
      [
        {
          ...fixture('io.github.acme/notes'),
          packages: [
            { registryType: 'nuget', identifier: 'Acme.Notes', version: '1.0.0', transport: { type: 'stdio' } },
            {
              registryType: 'npm',
              identifier: 'notes-http',
              version: '1.0.0',
              transport: { type: 'streamable-http', url: 'http://localhost:{port}/mcp' },
            },
            { registryType: 'cargo', identifier: 'notes', version: '1.0.0', transport: { type: 'stdio' } },
          ],
        },
        '',
        /nuget Acme.Notes@1.0.0: a NuGet package runs with .NET’s dnx[^\n]*\n {2}- npm notes-http@1.0.0: it runs as a local streamable-http server \(http:\/\/localhost:\{port\}\/mcp\)[^\n]*\n {2}- cargo notes@1.0.0: 'cargo' is not a package type/,
      ],
    ];
    for (const [server, kind, message] of cases) {
      const attempt = () => pickEntry(server, { name: 'x', onPath: only(), ...(kind ? { kind: kind as 'npm' } : {}) });
      expect(attempt, server.name).toThrow(Refusal);
      expect(attempt, server.name).toThrow(message);
    }
  });

  it('named arguments: a fixed value as two words, a required one as a reference or its default, optional ones left out', () => {
    const base = fixture('io.github.acme/notes');
    const server: ServerJson = {
      ...base,
      packages: [
        {
          ...base.packages![0],
          environmentVariables: [],
          packageArguments: [
            { type: 'named', name: '--root', isRequired: true },
            { type: 'named', name: '--port', isRequired: true, default: '8080' },
            { type: 'named', name: '--verbose', isRequired: true, format: 'boolean' },
            { type: 'named', name: '--color' },
            { type: 'positional', value: 'serve' },
            { type: 'positional', valueHint: 'extra' },
          ],
        },
      ],
    };
    const picked = pickEntry(server, { name: 'notes', onPath: everywhere });
    expect(picked.entry.args).toEqual([
      'notes-mcp@0.6.2',
      '--root',
      '${NOTES_ROOT}',
      '--port',
      '8080',
      '--verbose',
      'serve',
    ]);
  });
});
