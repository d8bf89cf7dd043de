// Plugin manifests: both file names, Han's format loading unchanged, defaults, and errors that name the field.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifestFileIn, parseManifest, readManifest } from '../../../src/sources/plugins/manifest.ts';
import { pluginProject, writePlugin } from '../../helpers/plugins.ts';

/**
 * Our own manifest in Han's han-plugin.yml format (a made-up schema checker and `tidy-lint` linter), using the
 * format's features: `${HAN_FILES}`, `dirs_with`/`dir_test`, `if_changed`, `idle_timeout`, `tip`, event lists,
 * the `PostToolUse:Edit|Write` shorthand, `tool_filter`/`file_filter`, and Han's own top-level `mcp`/`memory`.
 */
const HAN = `hooks:
  schemas:
    command: "node tools/validate-schemas.mjs --strict"
    dirs_with:
      - "schemas"
    if_changed: ["schemas/**/*.json", "tools/validate-schemas.mjs"]
    description: "Check every JSON schema against its examples"
    idle_timeout: 45000
  tidy:
    command: "tidy-lint --report \${HAN_FILES}"
    dirs_with: ["tidy.toml"]
    dir_test: "test -d docs && grep -q strict tidy.toml"
    if_changed: ["docs/**/*.{md,yml}"]
    tip: "tidy-lint --rewrite settles most findings in place"
    event: [Stop, SubagentStop]
  tidy-on-edit:
    event: [Stop, "PostToolUse:Edit|Write|MultiEdit"]
    command: "tidy-lint --rewrite \${HAN_FILES}"
    tool_filter: [Edit, Write, MultiEdit]
    file_filter: ["docs/**/*.{md,yml,yaml}"]
    dirs_with: ["tidy.toml"]

mcp: null
memory: null
`;

describe('parseManifest', () => {
  it('loads a Han han-plugin.yml unchanged, with defaults filled in', () => {
    const r = parseManifest(HAN, 'han-plugin.yml');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // Han's top-level mcp / memory sections are not Switchboard's: noted, never fatal.
    expect(r.warnings.map((w) => w.field)).toEqual(['mcp', 'memory']);
    expect(r.manifest.hooks.schemas).toEqual({
      command: 'node tools/validate-schemas.mjs --strict',
      dirs_with: ['schemas'],
      if_changed: ['schemas/**/*.json', 'tools/validate-schemas.mjs'],
      description: 'Check every JSON schema against its examples',
      idle_timeout: 45000,
      timeout: 30000,
      depends_on: [],
      mcp: true,
    });
    expect(r.manifest.hooks.tidy).toMatchObject({
      command: 'tidy-lint --report ${HAN_FILES}',
      dir_test: 'test -d docs && grep -q strict tidy.toml',
      tip: 'tidy-lint --rewrite settles most findings in place',
      event: [{ event: 'Stop' }, { event: 'SubagentStop' }],
    });
    // Han's event shorthand: an event and the tools it is for.
    expect(r.manifest.hooks['tidy-on-edit']).toMatchObject({
      event: [{ event: 'Stop' }, { event: 'PostToolUse', tools: ['Edit', 'Write', 'MultiEdit'] }],
      tool_filter: ['Edit', 'Write', 'MultiEdit'],
      file_filter: ['docs/**/*.{md,yml,yaml}'],
    });
  });

  it('reads every documented field of switchboard-plugin.yml, one value or a list alike', () => {
    const r = parseManifest(
      `name: do-checks
version: 2.1.0
description: Checks
keywords: [a, b]
hooks:
  build:
    command: make
    dirs_with: Makefile
    if_changed: "src/**"
    timeout: 5000
    mcp: false
    event: PostToolUse
    tool_filter: [Edit, "mcp__*"]
    depends_on:
      - { plugin: other, hook: gen, optional: true }
mcp_servers:
  docs: { command: "\${SWITCHBOARD_PLUGIN_ROOT}/server.js", args: ["--stdio"] }
  remote: { url: "https://example.com/mcp" }
`,
      'switchboard-plugin.yml',
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.manifest).toMatchObject({ name: 'do-checks', version: '2.1.0', keywords: ['a', 'b'] });
    expect(r.manifest.hooks.build).toMatchObject({
      dirs_with: ['Makefile'],
      if_changed: ['src/**'],
      timeout: 5000,
      mcp: false,
      event: [{ event: 'PostToolUse' }],
      tool_filter: ['Edit', 'mcp__*'],
      depends_on: [{ plugin: 'other', hook: 'gen', optional: true }],
    });
    expect(r.manifest.mcp_servers.docs).toEqual({
      command: '${SWITCHBOARD_PLUGIN_ROOT}/server.js',
      args: ['--stdio'],
      env: {},
    });
    expect(r.manifest.mcp_servers.remote).toEqual({ type: 'http', url: 'https://example.com/mcp', headers: {} });
  });

  it('reports a manifest without hooks, naming the field', () => {
    const r = parseManifest('name: empty\nversion: 1.0.0\n', 'x.yml');
    expect(r).toMatchObject({
      ok: false,
      file: 'x.yml',
      issues: [{ field: 'hooks', message: expect.stringMatching(/hooks is missing/) }],
    });
  });

  it('reports wrong types with the dotted path of the field', () => {
    const r = parseManifest('hooks:\n  lint:\n    command: x\n    timeout: soon\n    mcp: maybe\n', 'x.yml');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => i.field).sort()).toEqual(['hooks.lint.mcp', 'hooks.lint.timeout']);
  });

  it('reports a hook without a command, an unknown event and a bad mcp server', () => {
    const r = parseManifest(
      'hooks:\n  a: { dirs_with: [x] }\n  b: { command: y, event: Finish }\nmcp_servers:\n  s: { url: "not a url" }\n',
      'x.yml',
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => i.field)).toEqual(
      expect.arrayContaining(['hooks.a.command', 'hooks.b.event.0', expect.stringMatching(/^mcp_servers\.s/)]),
    );
    expect(r.issues.find((i) => i.field === 'hooks.b.event.0')?.message).toMatch(
      /unknown event 'Finish': expected one of PreToolUse, PostToolUse, .*Stop/,
    );
  });

  it('reports YAML syntax errors with the line, and non-mapping documents', () => {
    const bad = parseManifest('hooks:\n  lint: [unclosed\n', 'x.yml');
    expect(bad).toMatchObject({
      ok: false,
      issues: [{ field: '(root)', message: expect.stringMatching(/YAML syntax error at line \d+/) }],
    });
    expect(parseManifest('- a\n- b\n', 'x.yml')).toMatchObject({
      ok: false,
      issues: [{ message: expect.stringMatching(/expected a mapping/) }],
    });
  });

  it('keeps unknown keys as warnings, so manifests with extra fields still load', () => {
    const r = parseManifest('homepage: x\nhooks:\n  lint:\n    command: x\n    colour: red\n', 'x.yml');
    expect(r).toMatchObject({
      ok: true,
      warnings: [
        { field: 'homepage', message: "unknown key 'homepage' is ignored" },
        { field: 'hooks.lint.colour', message: "unknown key 'colour' is ignored" },
      ],
    });
  });
});

describe('manifest files', () => {
  it('finds switchboard-plugin.yml before han-plugin.yml, and either alone', () => {
    const root = pluginProject();
    const both = writePlugin(root, 'both', 'hooks: {}\n');
    writePlugin(root, 'both', 'hooks: {}\n', { file: 'han-plugin.yml' });
    const han = writePlugin(root, 'han', HAN, { file: 'han-plugin.yml' });
    expect(manifestFileIn(both, existsSync)).toBe(join(both, 'switchboard-plugin.yml'));
    expect(manifestFileIn(han, existsSync)).toBe(join(han, 'han-plugin.yml'));
    expect(manifestFileIn(root, existsSync)).toBeUndefined();
    expect(readManifest(join(han, 'han-plugin.yml'))).toMatchObject({ ok: true });
  });

  it('reports an unreadable file instead of throwing', () => {
    expect(readManifest('/nonexistent/switchboard-plugin.yml')).toMatchObject({
      ok: false,
      issues: [{ field: '(root)', message: expect.stringMatching(/cannot read/) }],
    });
  });
});
