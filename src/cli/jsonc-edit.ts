// Byte-exact edits of one member in a JSON file that may hold comments (Gemini CLI's settings.json does): the
// member is inserted as the first of its object, so every byte the user wrote stays where it was, and removing
// it cuts exactly what was inserted. jsonc-parser finds the offsets; nothing else is reformatted.

import { isDeepStrictEqual } from 'node:util';
import { createScanner, type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { CliError } from './output.ts';

type Path = readonly string[];

function tree(text: string, file: string): Node | undefined {
  if (!text.trim()) return undefined;
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length || root?.type !== 'object') {
    const problem = errors.length
      ? `${printParseErrorCode(errors[0].error)} at offset ${errors[0].offset}`
      : 'not a JSON object';
    throw new CliError(`${file} is not valid JSON (${problem}); fix or move it, then run this again.`, 1);
  }
  return root;
}

const members = (obj: Node) => obj.children ?? [];
const keyOf = (prop: Node) => prop.children?.[0]?.value as string;
const memberValue = (prop: Node | undefined) => prop?.children?.[1];
const memberNamed = (obj: Node, key: string) => members(obj).find((p) => keyOf(p) === key);
const valueNamed = (obj: Node, key: string) => memberValue(memberNamed(obj, key));

function nodeValue(node: Node | undefined): unknown {
  if (!node) return undefined;
  if (node.type === 'object')
    return Object.fromEntries(members(node).map((p) => [keyOf(p), nodeValue(memberValue(p))]));
  if (node.type === 'array') return (node.children ?? []).map(nodeValue);
  return node.value;
}

/** Whether the document says nothing: empty, or `{}` with no comments. */
export function isEmptyDocument(text: string): boolean {
  return text.replace(/\s/g, '') === '' || text.replace(/\s/g, '') === '{}';
}

const lineStart = (text: string, offset: number) => text.lastIndexOf('\n', offset - 1) + 1;
const indentAt = (text: string, offset: number) => /^[ \t]*/.exec(text.slice(lineStart(text, offset)))?.[0] ?? '';
/** The file's indent unit: the indent of its first indented member line, else two spaces. */
const indentUnit = (text: string) => /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';

function nested(path: Path, value: unknown): unknown {
  return path.reduceRight((inner, key) => ({ [key]: inner }), value);
}

function render(value: unknown, indent: string, unit: string): string {
  return JSON.stringify(value, null, unit).split('\n').join(`\n${indent}`);
}

/** Insert `"key": value` as the first member of `obj`. */
function insertFirst(text: string, obj: Node, key: string, value: unknown): string {
  const open = obj.offset + 1;
  const unit = indentUnit(text);
  const first = members(obj)[0];
  const closeIndent = indentAt(text, obj.offset);
  let insert: string;
  if (first && lineStart(text, first.offset) === lineStart(text, obj.offset))
    insert = ` ${JSON.stringify(key)}: ${JSON.stringify(value)},`; // an object written on one line stays on one
  else {
    const indent = first ? indentAt(text, first.offset) : closeIndent + unit;
    insert = `\n${indent}${JSON.stringify(key)}: ${render(value, indent, unit)}`;
    if (first) insert += ',';
    else if (!text.slice(open, obj.offset + obj.length - 1).includes('\n')) insert += `\n${closeIndent}`;
  }
  return text.slice(0, open) + insert + text.slice(open);
}

/**
 * Set `path` + `key` to `value`; objects missing on the way are created. Unchanged text when it is already so.
 *
 * @example
 * setMember('{\n  "theme": "x"\n}\n', ['mcpServers'], 'switchboard', { command: 'npx' }, file)
 */
export function setMember(text: string, path: Path, key: string, value: unknown, file: string): string {
  const root = tree(text, file);
  if (!root) return `${JSON.stringify(nested([...path, key], value), null, 2)}\n`;
  let obj = root;
  for (const [i, segment] of path.entries()) {
    const inner = valueNamed(obj, segment);
    if (!inner) return insertFirst(text, obj, segment, nested([...path.slice(i + 1), key], value));
    if (inner.type !== 'object')
      throw new CliError(`${file}: "${path.slice(0, i + 1).join('.')}" is not an object; fix it, then run this again.`);
    obj = inner;
  }
  const existing = valueNamed(obj, key);
  if (!existing) return insertFirst(text, obj, key, value);
  if (isDeepStrictEqual(nodeValue(existing), value)) return text;
  const indent = indentAt(text, existing.offset);
  return (
    text.slice(0, existing.offset) +
    render(value, indent, indentUnit(text)) +
    text.slice(existing.offset + existing.length)
  );
}

/** jsonc-parser's `SyntaxKind.CommaToken` (a const enum, which isolated modules cannot import). */
const COMMA_TOKEN = 5;

/** The offset just past the comma that follows `node` (comments skipped), or undefined when none does. */
function pastComma(text: string, node: Node): number | undefined {
  const scanner = createScanner(text, true);
  scanner.setPosition(node.offset + node.length);
  return scanner.scan() === COMMA_TOKEN ? scanner.getTokenOffset() + 1 : undefined;
}

function cut(text: string, obj: Node, prop: Node): string {
  const list = members(obj);
  const at = list.indexOf(prop);
  const end = prop.offset + prop.length;
  if (at > 0) return text.slice(0, list[at - 1].offset + list[at - 1].length) + text.slice(end);
  // The first member: cut from the brace through its comma, which is what insertFirst wrote.
  const after = list.length > 1 ? (pastComma(text, prop) ?? end) : end;
  return text.slice(0, obj.offset + 1) + text.slice(after);
}

/** The object at `path` below `root`, or undefined when something on the way is missing or not an object. */
function objectAt(root: Node | undefined, path: Path): Node | undefined {
  let node = root;
  for (const segment of path) node = node && valueNamed(node, segment);
  return node?.type === 'object' ? node : undefined;
}

/**
 * Remove `path` + `key`; an object on the way that this leaves with nothing in it (no member, no comment) is
 * removed too, since setMember created it. Unchanged text when the member is not there.
 */
export function removeMember(text: string, path: Path, key: string, file: string): string {
  const obj = objectAt(tree(text, file), path);
  const prop = obj && memberNamed(obj, key);
  if (!obj || !prop) return text;
  const next = cut(text, obj, prop);
  if (path.length === 0) return next;
  const container = objectAt(tree(next, file), path) as Node;
  const inside = next.slice(container.offset + 1, container.offset + container.length - 1);
  return inside.trim() === '' ? removeMember(next, path.slice(0, -1), path[path.length - 1], file) : next;
}
