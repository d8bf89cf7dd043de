// What an import carries over of another client's secrets (issue 29): every literal credential becomes a `${VAR}`
// reference named after the server and the key, the user is told which variables to set and where each value is,
// and nothing else of the entry changes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { secretVariablesNote } from '../../src/config/import-secrets.ts';
import { importServers } from '../../src/config/import-servers.ts';
import { ServerSchema } from '../../src/config/schema.ts';

const dir = mkdtempSync(join(tmpdir(), 'switchboard-import-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The literal secrets of the file below: none may be in what the import writes or prints. */
const LITERALS = [
  'sk-live-gh',
  'xk-live-1',
  'ghp_live2',
  'nk-live-3',
  'pg-pass-4',
  'c7-live-5',
  'tk-live-6',
  'rm-live-7',
  'q-live-8',
  'ca-live-9',
];

const claudeJson = {
  mcpServers: {
    github: {
      type: 'http',
      url: 'https://api.example.com/mcp',
      headers: { Authorization: 'Bearer sk-live-gh', 'X-API-Key': 'xk-live-1', 'X-Client': 'switchboard-test' },
    },
    notes: {
      command: 'notes-mcp',
      args: ['--port', '8080', '--verbose'],
      env: { NOTES_TOKEN: 'ghp_live2', API_KEY: 'nk-live-3', DEBUG: 'notes:*', DISABLE_AUTH: '1' },
    },
    pg: {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://app:pg-pass-4@localhost/db'],
    },
    ctx: { command: 'npx', args: ['-y', 'ctx-mcp', '--api-key', 'c7-live-5', '--token=tk-live-6'] },
    remote: {
      command: 'npx',
      args: ['mcp-remote', 'https://remote.example.com/mcp', '--header', 'Authorization:Bearer rm-live-7'],
    },
    'custom-api': { command: 'python', args: ['srv.py'], env: { API_KEY: 'ca-live-9' } },
    search: { type: 'sse', url: 'https://search.example.com/sse?api_key=q-live-8&region=eu' },
    already: { type: 'http', url: 'https://already.example.com/mcp', headers: { Authorization: 'Bearer ${GH_TOKEN}' } },
  },
};
const file = join(dir, 'claude.json');
writeFileSync(file, JSON.stringify(claudeJson));

describe('importing servers with secrets', () => {
  const found = importServers('claude-code', dir, file);
  const byName = Object.fromEntries(found.servers.map((s) => [s.name, s]));

  it('writes a ${VAR} reference, named after server and key, where each literal secret was', () => {
    expect(byName.github.headers).toEqual({
      Authorization: 'Bearer ${GITHUB_AUTHORIZATION}',
      'X-API-Key': '${GITHUB_X_API_KEY}',
      'X-Client': 'switchboard-test',
    });
    // A key that starts with the server's name is the variable's name as it is.
    expect(byName.notes.env).toEqual({
      NOTES_TOKEN: '${NOTES_TOKEN}',
      API_KEY: '${NOTES_API_KEY}',
      DEBUG: 'notes:*',
      DISABLE_AUTH: '1',
    });
    expect(byName.notes.args).toEqual(['--port', '8080', '--verbose']);
    expect(byName.pg.args).toEqual(['-y', '@modelcontextprotocol/server-postgres', '${PG_URL}']);
    expect(byName.ctx.args).toEqual(['-y', 'ctx-mcp', '--api-key', '${CTX_API_KEY}', '--token=${CTX_TOKEN}']);
    expect(byName.remote.args).toEqual([
      'mcp-remote',
      'https://remote.example.com/mcp',
      '--header',
      'Authorization:Bearer ${REMOTE_AUTHORIZATION}',
    ]);
    // Words the key repeats from the end of the server's name are written once.
    expect(byName['custom-api'].env).toEqual({ API_KEY: '${CUSTOM_API_KEY}' });
    expect(byName.search.url).toBe('${SEARCH_URL}');
    expect(byName.already.headers).toEqual({ Authorization: 'Bearer ${GH_TOKEN}' });
    const written = JSON.stringify(found.servers);
    for (const secret of LITERALS) expect(written).not.toContain(secret);
    for (const entry of found.servers) expect(ServerSchema.safeParse(entry).success).toBe(true);
  });

  it('lists each variable with its server, field and the file its value is in', () => {
    expect(found.secrets).toEqual([
      { server: 'github', variable: 'GITHUB_AUTHORIZATION', field: 'headers.Authorization', file, scheme: 'Bearer' },
      { server: 'github', variable: 'GITHUB_X_API_KEY', field: 'headers.X-API-Key', file },
      { server: 'notes', variable: 'NOTES_TOKEN', field: 'env.NOTES_TOKEN', file },
      { server: 'notes', variable: 'NOTES_API_KEY', field: 'env.API_KEY', file },
      { server: 'pg', variable: 'PG_URL', field: 'args[2]', file },
      { server: 'ctx', variable: 'CTX_API_KEY', field: 'args[3]', file },
      { server: 'ctx', variable: 'CTX_TOKEN', field: 'args[4]', file },
      { server: 'remote', variable: 'REMOTE_AUTHORIZATION', field: 'args[3]', file, scheme: 'Bearer' },
      { server: 'custom-api', variable: 'CUSTOM_API_KEY', field: 'env.API_KEY', file },
      { server: 'search', variable: 'SEARCH_URL', field: 'url', file },
      // Already a reference there: the variable to set, with no file holding its value.
      { server: 'already', variable: 'GH_TOKEN', field: 'headers.Authorization' },
    ]);
    const note = secretVariablesNote(found.secrets, '.switchboard/config.toml').join('\n');
    expect(note).toContain('Secrets are not copied into .switchboard/config.toml');
    expect(note).toMatch(
      /GITHUB_AUTHORIZATION +github headers\.Authorization \(the credential after "Bearer "\); its value is the one in .*claude\.json/,
    );
    expect(note).toMatch(/GH_TOKEN +already headers\.Authorization; a variable there already/);
    for (const secret of LITERALS) expect(note).not.toContain(secret);
    expect(secretVariablesNote([], '.switchboard/config.toml')).toEqual([]);
  });

  it('gives a variable name once: a second secret that would take it gets a number', () => {
    const twin = join(dir, 'twin.json');
    writeFileSync(
      twin,
      JSON.stringify({ mcpServers: { api: { command: 'api-mcp', env: { 'X-API-KEY': 'a', X_API_KEY: 'b' } } } }),
    );
    expect(importServers('claude-code', dir, twin).servers[0].env).toEqual({
      'X-API-KEY': '${API_X_API_KEY}',
      X_API_KEY: '${API_X_API_KEY_2}',
    });
  });

  it('keeps the literals when asked (the user scope), and lists nothing to set', () => {
    const kept = importServers('claude-code', dir, file, process.env, { keepSecrets: true });
    expect(kept.servers.find((s) => s.name === 'github')?.headers).toEqual(claudeJson.mcpServers.github.headers);
    expect(kept.secrets).toEqual([]);
  });
});
