// Adding and removing one table in a TOML file someone else owns (Codex's config.toml), leaving every other byte
// as it was: a new table is appended as text, and removing it cuts exactly that text. Anything else (a changed
// entry, an inline `mcp_servers = {…}`, an entry edited since) goes through toml-patch, which keeps comments.
import { isDeepStrictEqual } from 'node:util';
import { patch as tomlPatch } from '@decimalturn/toml-patch';
import { parse, stringify } from 'smol-toml';
import { CliError } from './output.ts';

type Table = Record<string, unknown>;
type Path = readonly [string, string];

function read(text: string, file: string): Table {
  try {
    return parse(text) as Table;
  } catch (err) {
    const first = (err as Error).message.split('\n')[0];
    throw new CliError(`${file} is not valid TOML (${first}); fix or move it, then run this again.`, 1);
  }
}

/** Same content, whatever the prototypes (smol-toml's tables and ours differ): what the comparisons need. */
const plain = (x: unknown) => (x === undefined ? undefined : JSON.parse(JSON.stringify(x)));
const same = (a: unknown, b: unknown) => isDeepStrictEqual(plain(a), plain(b));

const tableAt = (doc: Table, key: string): Table | undefined => {
  const t = doc[key];
  return t && typeof t === 'object' && !Array.isArray(t) ? (t as Table) : undefined;
};

/** The text appended for `[a.b]` with `value`: what removeTable recognises as its own. */
const block = ([outer, inner]: Path, value: Table) => stringify({ [outer]: { [inner]: value } });

function withEntry(doc: Table, [outer, inner]: Path, value: Table | undefined): Table {
  const rest = { ...(tableAt(doc, outer) ?? {}) };
  if (value) rest[inner] = value;
  else delete rest[inner];
  const next = { ...doc, [outer]: rest };
  if (Object.keys(rest).length === 0) delete next[outer];
  return next;
}

/** The value of `[a.b]`, or undefined. */
export function tableValue(text: string, [outer, inner]: Path, file: string): unknown {
  return tableAt(read(text, file), outer)?.[inner];
}

/** Set `[outer.inner]` to `value`; unchanged text when it already is. */
export function setTable(text: string, path: Path, value: Table, file: string): string {
  const doc = read(text, file);
  const current = tableAt(doc, path[0])?.[path[1]];
  if (same(current, value)) return text;
  const expected = withEntry(doc, path, value);
  if (current === undefined) {
    const appended =
      text === '' ? block(path, value) : `${text}${text.endsWith('\n') ? '\n' : '\n\n'}${block(path, value)}`;
    // Appending a table is valid unless the parent is an inline table; then toml-patch rewrites it.
    try {
      if (same(parse(appended), expected)) return appended;
    } catch {
      // fall through
    }
  }
  return tomlPatch(text, expected);
}

/** Remove `[outer.inner]` (and `[outer]` when nothing else is left in it); unchanged text when it is absent. */
export function removeTable(text: string, path: Path, file: string): string {
  const doc = read(text, file);
  const current = tableAt(doc, path[0])?.[path[1]];
  if (current === undefined) return text;
  const expected = withEntry(doc, path, undefined);
  const ours = block(path, current as Table);
  const at = text.indexOf(ours);
  if (at === 0 || (at > 0 && text[at - 1] === '\n')) {
    // Cut the block and the blank line setTable put before it.
    const from = at >= 2 && text.slice(at - 2, at) === '\n\n' ? at - 1 : at;
    const cut = text.slice(0, from) + text.slice(at + ours.length);
    try {
      if (same(parse(cut), expected)) return cut;
    } catch {
      // fall through
    }
  }
  return tomlPatch(text, expected);
}
