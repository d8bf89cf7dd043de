// The edits install/uninstall make to files the user owns: one entry in, the same entry out, every other byte kept.

import { parse as jsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { isEmptyDocument, removeMember, setMember } from '../../src/cli/jsonc-edit.ts';
import { removeTable, setTable } from '../../src/cli/toml-table-edit.ts';

const ENTRY = { command: 'npx', args: ['-y', 'switchboard-mcp', 'serve'] };
const PATH = ['mcp_servers', 'switchboard'] as const;

describe('JSON with comments: setMember / removeMember', () => {
  const kept = [
    [
      'comments, other servers, an inline member with a comment after it',
      '{\n  // my theme\n  "theme": "GitHub",\n  "mcpServers": {\n    "files": { "command": "fs" } // mine\n  }\n}\n',
    ],
    ['no mcpServers yet, a block comment', '{\n  "theme": "GitHub" /* dark */\n}\n'],
    ['tabs and trailing commas', '{\n\t"mcpServers": {\n\t\t"a": {"command": "x"},\n\t},\n}\n'],
    ['one line', '{"mcpServers": {"a": {"command": "x"}}}'],
    ['four-space indent, other keys after', '{\n    "mcpServers": {\n        "a": {}\n    },\n    "z": [1, 2]\n}'],
  ];
  for (const [what, original] of kept)
    it(`adds the entry and removes it byte for byte: ${what}`, () => {
      const added = setMember(original, ['mcpServers'], 'switchboard', ENTRY, 'settings.json');
      const value = jsonc(added);
      expect(value.mcpServers.switchboard).toEqual(ENTRY);
      const { mcpServers: _ours, ...rest } = value;
      const { mcpServers: _theirs, ...restBefore } = jsonc(original);
      expect(rest).toEqual(restBefore);
      expect(setMember(added, ['mcpServers'], 'switchboard', ENTRY, 'settings.json')).toBe(added);
      expect(removeMember(added, ['mcpServers'], 'switchboard', 'settings.json')).toBe(original);
    });

  it('indents the entry like the file', () => {
    const added = setMember('{\n    "a": 1\n}\n', ['mcpServers'], 'switchboard', ENTRY, 'f');
    expect(added).toBe(
      '{\n    "mcpServers": {\n        "switchboard": {\n            "command": "npx",\n            "args": [\n                "-y",\n                "switchboard-mcp",\n                "serve"\n            ]\n        }\n    },\n    "a": 1\n}\n',
    );
  });

  it('replaces a different entry in place, and leaves a file that never had one alone', () => {
    const old =
      '{\n  "mcpServers": {\n    "switchboard": { "command": "npx", "args": ["switchboard", "serve"] }\n  }\n}\n';
    const next = setMember(old, ['mcpServers'], 'switchboard', ENTRY, 'f');
    expect(jsonc(next).mcpServers.switchboard).toEqual(ENTRY);
    const mine = '{\n  "theme": "x"\n}\n';
    expect(removeMember(mine, ['mcpServers'], 'switchboard', 'f')).toBe(mine);
  });

  it('a file it created is empty again after removal', () => {
    const created = setMember('', ['mcpServers'], 'switchboard', ENTRY, 'f');
    expect(JSON.parse(created)).toEqual({ mcpServers: { switchboard: ENTRY } });
    expect(isEmptyDocument(removeMember(created, ['mcpServers'], 'switchboard', 'f'))).toBe(true);
    // An emptied mcpServers that still holds a comment is the user's and stays.
    const commented = '{\n  "mcpServers": {\n    // keep me\n  }\n}\n';
    const round = removeMember(
      setMember(commented, ['mcpServers'], 'switchboard', ENTRY, 'f'),
      ['mcpServers'],
      'switchboard',
      'f',
    );
    expect(round).toBe(commented);
  });

  it('refuses a file that is not JSON, and a mcpServers that is not an object, saying where', () => {
    expect(() => setMember('{ "a": ', ['mcpServers'], 'switchboard', ENTRY, '/x/settings.json')).toThrow(
      /\/x\/settings.json is not valid JSON/,
    );
    expect(() => setMember('{ "mcpServers": [] }', ['mcpServers'], 'switchboard', ENTRY, 'f')).toThrow(
      /"mcpServers" is not an object/,
    );
  });
});

describe('TOML: setTable / removeTable', () => {
  const kept = [
    [
      'comments, other servers and tables after them',
      '# my codex config\nmodel = "o3" # fast\n\n[mcp_servers.files]\n# the files server\ncommand = "npx"\nargs = ["-y", "fs"]\n\n[projects."/x"]\ntrust_level = "trusted"\n',
    ],
    ['no mcp_servers yet', '# nothing here\nmodel = "o3"\n'],
    ['blank lines at the end', 'model = "o3"\n[profiles.x]\nmodel = "y"\n\n\n'],
    ['a dotted [mcp_servers] table', '[mcp_servers]\na.command = "x"\n'],
  ];
  for (const [what, original] of kept)
    it(`appends [mcp_servers.switchboard] and removes it byte for byte: ${what}`, () => {
      const added = setTable(original, PATH, ENTRY, 'config.toml');
      expect(added.startsWith(original)).toBe(true);
      expect((parseToml(added).mcp_servers as Record<string, unknown>).switchboard).toEqual(ENTRY);
      expect(setTable(added, PATH, ENTRY, 'config.toml')).toBe(added);
      expect(removeTable(added, PATH, 'config.toml')).toBe(original);
    });

  it('edits an inline mcp_servers table through toml-patch, comments kept', () => {
    const original = '# top\nmcp_servers = { a = { command = "x" } } # inline\n';
    const added = setTable(original, PATH, ENTRY, 'f');
    expect(parseToml(added)).toEqual({ mcp_servers: { a: { command: 'x' }, switchboard: ENTRY } });
    expect(added).toContain('# top');
    const removed = removeTable(added, PATH, 'f');
    expect(parseToml(removed)).toEqual({ mcp_servers: { a: { command: 'x' } } });
    expect(removed).toContain('# top');
  });

  it('removes an entry edited since (toml-patch), keeps the rest, and a file it created ends empty', () => {
    const edited =
      'model = "o3"\n\n[mcp_servers.switchboard]\ncommand = "npx"\nargs = ["-y", "switchboard-mcp", "serve", "--http"]\n';
    expect(parseToml(removeTable(edited, PATH, 'f'))).toEqual({ model: 'o3' });
    expect(removeTable(setTable('', PATH, ENTRY, 'f'), PATH, 'f')).toBe('');
  });

  it('refuses a file that is not TOML', () => {
    expect(() => setTable('model = ', PATH, ENTRY, '/c/config.toml')).toThrow(/\/c\/config.toml is not valid TOML/);
  });
});
