// Globs over capability names (`task.*`, `github.get_*`): the one matcher behind `[expose]`, `serve --only/--except`,
// a token's own filter, agent.json `builtins` and `[profiles.NAME]`. picomatch with `dot: true`; compiled once per
// list of globs.
import picomatch from 'picomatch';

/** Allow and deny globs over capability names; deny wins over allow, an empty allow admits everything. */
export interface Exposure {
  allow?: readonly string[];
  deny?: readonly string[];
}

const compiled = new Map<string, (name: string) => boolean>();

function matcher(globs: readonly string[]): (name: string) => boolean {
  const key = globs.join('\0');
  let m = compiled.get(key);
  if (!m) {
    m = picomatch(globs as string[], { dot: true });
    compiled.set(key, m);
  }
  return m;
}

/**
 * One filter from several exposure layers: a name must pass every layer's `allow` (when it has one) and no
 * layer's `deny`. Undefined when no layer restricts anything (the fast, common case).
 */
export function exposureFilter(layers: readonly (Exposure | undefined)[]): ((name: string) => boolean) | undefined {
  const active = layers.filter((l): l is Exposure => !!l && ((l.allow?.length ?? 0) > 0 || (l.deny?.length ?? 0) > 0));
  if (active.length === 0) return undefined;
  const checks = active.map((l) => {
    const allow = l.allow?.length ? matcher(l.allow) : undefined;
    const deny = l.deny?.length ? matcher(l.deny) : undefined;
    return (name: string) => (!allow || allow(name)) && !(deny?.(name) ?? false);
  });
  return (name) => checks.every((c) => c(name));
}
