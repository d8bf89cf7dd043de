// Hook naming: the explicit capability ↔ tool mapping, titles without family prefixes, descriptions with triggers.
import { describe, expect, it } from 'vitest';
import { capabilityNameOf, toolNameOf } from '../../../src/core/names.ts';
import { HookSchema } from '../../../src/sources/plugins/manifest.ts';
import {
  hanPluginAliases,
  hanToolName,
  hookCapabilityName,
  hookDescription,
  hookKind,
  hookTitle,
  hookToolName,
  rewriteHanToolNames,
} from '../../../src/sources/plugins/naming.ts';

const spec = (fields: Record<string, unknown>) => HookSchema.parse(fields);

describe('hook names', () => {
  it('maps hook lint of jutsu-typescript to capability jutsu_typescript.lint and tool jutsu_typescript__lint', () => {
    expect(hookCapabilityName('jutsu-typescript', 'lint')).toBe('jutsu_typescript.lint');
    expect(hookToolName('jutsu-typescript', 'lint')).toBe('jutsu_typescript__lint');
    expect(toolNameOf(hookCapabilityName('jutsu-typescript', 'lint'))).toBe('jutsu_typescript__lint');
    expect(capabilityNameOf('jutsu_typescript__lint')).toBe('jutsu_typescript.lint');
  });

  it('turns dashes and odd characters in hook names into underscores', () => {
    expect(hookToolName('do-a11y', 'type-check')).toBe('do_a11y__type_check');
    expect(hookToolName('my plugin!', 'run tests')).toBe('my_plugin__run_tests');
  });

  it('keeps tool names within 64 characters with a stable tail', () => {
    const long = hookToolName(`jutsu-${'x'.repeat(60)}`, 'lint');
    expect(long).toHaveLength(64);
    expect(hookToolName(`jutsu-${'x'.repeat(60)}`, 'lint')).toBe(long);
  });
});

describe('hook titles', () => {
  it('strips the jutsu-, do- and hashi- prefixes and spells known words properly', () => {
    expect(hookTitle('jutsu-typescript', 'lint')).toBe('Lint TypeScript');
    expect(hookTitle('do-accessibility', 'check')).toBe('Check Accessibility');
    expect(hookTitle('hashi-github', 'sync-issues')).toBe('Sync Issues GitHub');
    expect(hookTitle('jutsu-eslint', 'lint')).toBe('Lint ESLint');
  });

  it('keeps names that only look like a prefix', () => {
    expect(hookTitle('jutsu-', 'test')).toBe('Test Jutsu');
    expect(hookTitle('dotnet', 'build')).toBe('Build .NET');
  });
});

describe('hook descriptions', () => {
  it('describes a test hook with triggers, where it runs and the exact command', () => {
    const d = hookDescription('jutsu-typescript', 'test', spec({ command: 'npm test', dirs_with: ['package.json'] }));
    expect(d).toBe(
      'Run the TypeScript tests. Triggers: "are the tests green", "test the typescript code", "what broke", "rerun failing tests". Runs in directories containing: package.json. Command: npm test',
    );
  });

  it('uses the manifest description first and adds the cache note and tip before where and command', () => {
    const d = hookDescription(
      'jutsu-biome',
      'lint',
      spec({ command: 'npx biome check', description: 'Lint with Biome', if_changed: ['**/*.ts'], tip: 'Use --write' }),
    );
    expect(d).toMatch(/^Lint with Biome\. Triggers: "lint the code", /);
    expect(d).toMatch(
      /cache=false forces a run\)\. Tip: Use --write Runs in the project root\. Command: npx biome check$/,
    );
  });

  it('recognises each kind from the hook name, else from the command', () => {
    expect(hookKind('test', 'x')).toBe('test');
    expect(hookKind('lint', 'x')).toBe('lint');
    expect(hookKind('typecheck', 'x')).toBe('typecheck');
    expect(hookKind('check', 'tsc --noEmit')).toBe('typecheck');
    expect(hookKind('fmt', 'x')).toBe('format');
    expect(hookKind('build', 'x')).toBe('build');
    expect(hookKind('compile', 'x')).toBe('compile');
    expect(hookKind('verify', 'pytest -q')).toBe('test');
    expect(hookKind('audit', 'npm audit')).toBe('generic');
  });

  it('gives every kind its own triggers and a generic one otherwise', () => {
    const triggers = (hook: string) =>
      hookDescription('p', hook, spec({ command: 'x' })).match(/Triggers: ([^.]*)\./)?.[1];
    expect(triggers('typecheck')).toContain('"check types"');
    expect(triggers('format')).toContain('"format the code"');
    expect(triggers('build')).toContain('"build the project"');
    expect(triggers('compile')).toContain('"check that it compiles"');
    expect(triggers('audit')).toBe('"run audit", "run the audit check", "check audit"');
  });
});

describe("Han's tool names in tips", () => {
  it('rewrites every alias a plugin had in Han, bare or behind an MCP prefix, and leaves other words alone', () => {
    const names = new Map(hanPluginAliases(['relay']).map((a) => [hanToolName(a, 'compile'), 'relay__compile']));
    expect(
      rewriteHanToolNames(
        'Use the `jutsu_relay_compile` MCP tool (mcp__plugin_hashi-han_han__relay_compile), not relay_compiler.',
        names,
      ),
    ).toBe('Use the `relay__compile` MCP tool (relay__compile), not relay_compiler.');
  });
});
