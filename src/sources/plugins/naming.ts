// How a plugin hook is named and described to a model: capability `jutsu_typescript.lint` ↔ tool
// `jutsu_typescript__lint`, title "Lint TypeScript", and a description with natural-language triggers.
import { toolNameOf, toSegment } from '../../core/names.ts';
import type { HookSpec } from './manifest.ts';

/** Domains the hub itself owns; a plugin may not take them. */
export const BUILTIN_DOMAINS = ['task', 'system', 'test', 'hook', 'script', 'agent', 'session'] as const;

/** Prefixes of Han plugin families that say nothing about what the plugin checks. */
const FAMILY_PREFIXES = ['jutsu-', 'do-', 'hashi-'];

/**
 * The capability name of hook `hook` of plugin `plugin` (an already-resolved plugin segment or a raw name):
 * both become name segments (`-` → `_`), joined by a dot. The tool name is then `toolNameOf` of it.
 *
 * @example
 * hookCapabilityName('jutsu-typescript', 'lint') // 'jutsu_typescript.lint'
 * toolNameOf(hookCapabilityName('jutsu-typescript', 'lint')) // 'jutsu_typescript__lint'
 */
export function hookCapabilityName(plugin: string, hook: string): string {
  return `${toSegment(plugin)}.${toSegment(hook)}`;
}

/** The MCP tool name of a hook. */
export function hookToolName(plugin: string, hook: string): string {
  return toolNameOf(hookCapabilityName(plugin, hook));
}

/** Spellings a plain capitalisation gets wrong. */
const PROPER: Record<string, string> = {
  typescript: 'TypeScript',
  javascript: 'JavaScript',
  eslint: 'ESLint',
  tsc: 'TSC',
  npm: 'npm',
  pnpm: 'pnpm',
  github: 'GitHub',
  graphql: 'GraphQL',
  css: 'CSS',
  html: 'HTML',
  json: 'JSON',
  yaml: 'YAML',
  ui: 'UI',
  api: 'API',
  rspec: 'RSpec',
  phpunit: 'PHPUnit',
  dotnet: '.NET',
  csharp: 'C#',
};

const words = (s: string) =>
  s
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((w) => PROPER[w.toLowerCase()] ?? w[0].toUpperCase() + w.slice(1));

/**
 * A short human title: the hook's words, then the plugin's without its family prefix.
 *
 * @example
 * hookTitle('jutsu-typescript', 'lint') // 'Lint TypeScript'
 * hookTitle('do-accessibility', 'check') // 'Check Accessibility'
 */
export function hookTitle(plugin: string, hook: string): string {
  const prefix = FAMILY_PREFIXES.find((p) => plugin.startsWith(p) && plugin.length > p.length);
  const subject = prefix ? plugin.slice(prefix.length) : plugin;
  return [...words(hook), ...words(subject)].join(' ');
}

export type HookKind = 'test' | 'lint' | 'typecheck' | 'format' | 'build' | 'compile' | 'generic';

const KIND_PATTERNS: [HookKind, RegExp][] = [
  ['typecheck', /type-?check|types|tsc\b|mypy|pyright/],
  ['test', /test|spec|jest|vitest|pytest|rspec/],
  ['lint', /lint|clippy|credo|rubocop|ruff|biome check/],
  ['format', /format|fmt|prettier/],
  ['compile', /compile/],
  ['build', /build/],
];

/** What kind of check a hook is, from its name, then from its command. */
export function hookKind(hook: string, command: string): HookKind {
  for (const text of [hook.toLowerCase(), command.toLowerCase()]) {
    for (const [kind, re] of KIND_PATTERNS) if (re.test(text)) return kind;
  }
  return 'generic';
}

/** What a model should hear to pick the tool: a sentence, then phrases a user says when they want it. */
function kindText(kind: HookKind, subject: string, hook: string): { sentence: string; triggers: string[] } {
  const s = subject ? `${subject} ` : '';
  switch (kind) {
    case 'test':
      return {
        sentence: `Run the ${s}tests.`,
        triggers: ['are the tests green', `test the ${s.toLowerCase()}code`, 'what broke', 'rerun failing tests'],
      };
    case 'lint':
      return {
        sentence: `Lint the ${s}code.`,
        triggers: ['lint the code', `run ${s.toLowerCase()}lint`, 'check for lint errors', 'fix lint issues'],
      };
    case 'typecheck':
      return {
        sentence: `Type-check the ${s}code.`,
        triggers: ['check types', 'run the type checker', 'find type errors', 'does it typecheck'],
      };
    case 'format':
      return {
        sentence: `Format the ${s}code.`,
        triggers: ['format the code', 'fix formatting', 'check formatting', `run ${s.toLowerCase()}formatter`],
      };
    case 'build':
      return {
        sentence: `Build the ${s}project.`,
        triggers: ['build the project', 'run the build', 'check that it builds', 'does it build'],
      };
    case 'compile':
      return {
        sentence: `Compile the ${s}code.`,
        triggers: ['compile the code', 'check that it compiles', 'run the compiler', 'find compile errors'],
      };
    default:
      return {
        sentence: `Run the ${hook} hook${subject ? ` of ${subject}` : ''}.`,
        triggers: [`run ${hook}`, `run the ${hook} check`, `check ${hook}`],
      };
  }
}

/**
 * The tool description: the manifest's own text (or one from the hook kind), triggers, where it runs and the
 * exact command, so a model knows what will happen before it calls.
 *
 * @example
 * hookDescription('jutsu-typescript', 'test', { command: 'npm test', dirs_with: ['package.json'], … })
 * // 'Run the TypeScript tests. Triggers: "are the tests green", … Runs in directories containing: package.json. Command: npm test'
 */
export function hookDescription(plugin: string, hook: string, spec: HookSpec, markers: 'all' | 'any' = 'all'): string {
  const prefix = FAMILY_PREFIXES.find((p) => plugin.startsWith(p) && plugin.length > p.length);
  const subject = words(prefix ? plugin.slice(prefix.length) : plugin).join(' ');
  const { sentence, triggers } = kindText(hookKind(hook, spec.command), subject, hook);
  const own = spec.description?.trim();
  const first = own ? (/[.!?]$/.test(own) ? own : `${own}.`) : sentence;
  const where = spec.dirs_with.length
    ? `Runs in directories containing: ${spec.dirs_with.join(markers === 'any' ? ' or ' : ' and ')}.`
    : 'Runs in the project root.';
  const parts = [first, `Triggers: ${triggers.map((t) => `"${t.replace(/\s+/g, ' ').trim()}"`).join(', ')}.`];
  if (spec.if_changed.length)
    parts.push('Skips directories unchanged since their last success (cache=false forces a run).');
  if (spec.tip) parts.push(`Tip: ${spec.tip}`);
  parts.push(where, `Command: ${spec.command}`);
  return parts.join(' ');
}

/**
 * Han's MCP name of a hook: `{plugin}_{hook}` with `-` → `_` (`jutsu-relay` + `compile` → `jutsu_relay_compile`).
 * Han's tips name its tools so; they are rewritten to Switchboard's names when shown.
 */
export function hanToolName(plugin: string, hook: string): string {
  return `${plugin}_${hook}`.replace(/-/g, '_');
}

/**
 * The names a plugin went by in Han: the given ones, and each with and without a family prefix (Han renamed
 * `jutsu-relay` to `relay` and kept the old name as an alias, and its tips still say `jutsu_relay_compile`).
 */
export function hanPluginAliases(names: readonly string[]): string[] {
  const out = new Set<string>();
  for (const name of names) {
    const bare = FAMILY_PREFIXES.reduce(
      (n, p) => (n.startsWith(p) && n.length > p.length ? n.slice(p.length) : n),
      name,
    );
    out.add(name);
    out.add(bare);
    for (const p of FAMILY_PREFIXES) out.add(p + bare);
  }
  return [...out];
}

/**
 * Replace Han tool names in a text (bare, or with an MCP prefix such as `mcp__plugin_hashi-han_han__`) by the
 * Switchboard tool names `names` maps them to; other words are left alone.
 *
 * @example
 * rewriteHanToolNames('Use the `jutsu_relay_compile` MCP tool', new Map([['jutsu_relay_compile', 'relay__compile']]))
 * // 'Use the `relay__compile` MCP tool'
 */
export function rewriteHanToolNames(text: string, names: ReadonlyMap<string, string>): string {
  return text.replace(/(?:mcp__[\w-]+__)?[A-Za-z0-9_]+/g, (word) => {
    const cut = word.startsWith('mcp__') ? word.lastIndexOf('__') + 2 : 0;
    return names.get(word.slice(cut)) ?? word;
  });
}
