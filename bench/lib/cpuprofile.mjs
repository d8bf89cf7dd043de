// Summarises a V8 .cpuprofile (node --cpu-prof): self time by package / source file and by function, and
// inclusive time of chosen functions, restricted to a time window (the load phase). Bundled code (dist/,
// the SDK's dist/) is mapped back to its original package and file through the linked source maps.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const maps = new Map();

/** The SourceMap of a generated file, or null. */
function sourceMapOf(file) {
  if (maps.has(file)) return maps.get(file);
  let map = null;
  try {
    const text = readFileSync(file, 'utf8');
    const m = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text.slice(-500));
    if (m && !m[1].startsWith('data:')) {
      const mapFile = join(dirname(file), m[1]);
      if (existsSync(mapFile))
        map = { sm: new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))), dir: dirname(mapFile) };
    }
  } catch {}
  maps.set(file, map);
  return map;
}

/** Where a call frame's code really comes from: { pkg, file } (file relative to its package or to the repo). */
function locate(frame, root) {
  const { url, functionName, lineNumber, columnNumber } = frame;
  if (!url) {
    if (functionName === '(garbage collector)') return { pkg: 'GC', file: '(garbage collector)' };
    if (functionName === '(idle)') return { pkg: '(idle)', file: '(idle)' };
    if (functionName === '(program)') return { pkg: '(program: native, not attributed)', file: '(program)' };
    if (functionName === '(root)') return { pkg: '(root)', file: '(root)' };
    return { pkg: 'V8 builtins', file: '(builtin)' };
  }
  if (url.startsWith('node:')) return { pkg: 'node core', file: url.slice(5) };
  let path = url.startsWith('file://') ? fileURLToPath(url) : url;
  let line = lineNumber + 1;
  const sm = sourceMapOf(path);
  if (sm && lineNumber >= 0) {
    const entry = sm.sm.findEntry(lineNumber, columnNumber);
    if (entry?.originalSource) {
      const src = entry.originalSource.startsWith('file://')
        ? fileURLToPath(entry.originalSource)
        : entry.originalSource;
      path = normalize(src.startsWith('/') ? src : join(sm.dir, src));
      line = entry.originalLine + 1;
    }
  }
  const nm = path.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = path.slice(nm + 'node_modules/'.length).split('/');
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    return { pkg, file: `${pkg}/${rest.slice(rest[0].startsWith('@') ? 2 : 1).join('/')}`, line };
  }
  const rel = relative(root, path);
  if (rel.startsWith('src/')) return { pkg: `switchboard ${rel.split('/').slice(0, 2).join('/')}`, file: rel, line };
  return { pkg: rel.startsWith('..') ? path : rel, file: rel.startsWith('..') ? path : rel, line };
}

/**
 * @param {string} file .cpuprofile path
 * @param {{ root: string, fromUs?: number, toUs?: number, inclusive?: string[], callers?: string[] }} opts window in V8 monotonic µs
 */
export function summarise(file, opts) {
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  let t = prof.startTime;
  let total = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i];
    const dt = prof.timeDeltas[i + 1] ?? 0;
    if (opts.fromUs !== undefined && (t < opts.fromUs || t > opts.toUs)) continue;
    self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + dt);
    total += dt;
  }
  const located = new Map();
  const loc = (node) => {
    if (!located.has(node.id)) located.set(node.id, locate(node.callFrame, opts.root));
    return located.get(node.id);
  };
  const fnLabel = (node) => {
    const l = loc(node);
    return `${node.callFrame.functionName || '(anonymous)'}  ${l.file}${l.line ? `:${l.line}` : ''}`;
  };
  const byPkg = new Map();
  const byFile = new Map();
  const byFn = new Map();
  for (const [id, us] of self) {
    const node = byId.get(id);
    const { pkg, file: f } = loc(node);
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + us);
    byFile.set(f, (byFile.get(f) ?? 0) + us);
    byFn.set(fnLabel(node), (byFn.get(fnLabel(node)) ?? 0) + us);
  }
  // Who calls the hot functions: for each sample inside a function named in `callers`, the nearest frame
  // above it that is not itself that function (nor a V8 builtin or node core frame) gets the time.
  const callers = new Map();
  for (const name of opts.callers ?? []) {
    const m = new Map();
    for (const [id, us] of self) {
      let cur = id;
      while (cur !== undefined && byId.get(cur).callFrame.functionName !== name) cur = parent.get(cur);
      if (cur === undefined) continue;
      let up = parent.get(cur);
      while (up !== undefined) {
        const n = byId.get(up);
        const l = loc(n);
        if (
          n.callFrame.functionName !== name &&
          l.pkg !== 'V8 builtins' &&
          l.pkg !== 'node core' &&
          n.callFrame.functionName
        )
          break;
        up = parent.get(up);
      }
      const key = up === undefined ? '(top)' : fnLabel(byId.get(up));
      m.set(key, (m.get(key) ?? 0) + us);
    }
    callers.set(
      name,
      [...m.entries()].sort((a, b) => b[1] - a[1]),
    );
  }
  // Inclusive time of named functions: a sample counts once for a name if any frame on its stack has it.
  const inclusive = new Map();
  if (opts.inclusive?.length) {
    const names = new Set(opts.inclusive);
    for (const [id, us] of self) {
      const seen = new Set();
      for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
        const name = byId.get(cur).callFrame.functionName;
        if (names.has(name) && !seen.has(name)) {
          seen.add(name);
          inclusive.set(name, (inclusive.get(name) ?? 0) + us);
        }
      }
    }
  }
  const sorted = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return {
    totalUs: total,
    byPkg: sorted(byPkg),
    byFile: sorted(byFile),
    byFn: sorted(byFn),
    inclusive: sorted(inclusive),
    callers,
  };
}

/** A plain-text rendering of a summary (top `n` rows per table). */
export function render(title, s, n = 25) {
  const pct = (us) => `${((us / s.totalUs) * 100).toFixed(1).padStart(5)}%`;
  const ms = (us) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
  const lines = [`### ${title} — ${(s.totalUs / 1000).toFixed(0)} ms sampled`, '', 'Self time by package / area:'];
  for (const [k, us] of s.byPkg.slice(0, n)) lines.push(`  ${pct(us)} ${ms(us)}  ${k}`);
  lines.push('', 'Self time by source file:');
  for (const [k, us] of s.byFile.slice(0, n)) lines.push(`  ${pct(us)} ${ms(us)}  ${k}`);
  lines.push('', 'Top functions by self time:');
  for (const [k, us] of s.byFn.slice(0, n)) lines.push(`  ${pct(us)} ${ms(us)}  ${k}`);
  if (s.inclusive.length) {
    lines.push('', 'Inclusive time of selected functions:');
    for (const [k, us] of s.inclusive) lines.push(`  ${pct(us)} ${ms(us)}  ${k}`);
  }
  for (const [name, list] of s.callers ?? []) {
    if (!list.length) continue;
    lines.push('', `Callers of ${name} (time inside it, by nearest calling function):`);
    for (const [k, us] of list.slice(0, 8)) lines.push(`  ${pct(us)} ${ms(us)}  ${k}`);
  }
  return lines.join('\n');
}
