// TypeScript declarations of tools, from their JSON Schemas, for code mode (`catalog.run`): what a model reads to
// write `await tools.NAME(args)` correctly. A small generator over the JSON Schema tools use (see decisions.md).

type Schema = Record<string, unknown>;

/** Nesting shown before a schema reads `unknown`: tool inputs are shallow; this bounds a recursive one. */
const MAX_DEPTH = 6;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** How a program names a tool: `tools.task__create`, or `tools["my-server__x"]` when the name is no identifier. */
export function toolAccessor(name: string): string {
  return IDENTIFIER.test(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`;
}

const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The TypeScript type a JSON Schema describes (the subset tools use; anything else is `unknown`). */
export function schemaToType(schema: unknown, depth = 0, indent = ''): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (!isSchema(schema) || depth > MAX_DEPTH) return 'unknown';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ') || 'never';
  for (const [k, join] of [
    ['anyOf', ' | '],
    ['oneOf', ' | '],
    ['allOf', ' & '],
  ] as const) {
    const parts = schema[k];
    if (Array.isArray(parts) && parts.length)
      return parts.map((p) => wrap(schemaToType(p, depth + 1, indent))).join(join);
  }
  const type = schema.type;
  if (Array.isArray(type))
    return type.map((t) => wrap(schemaToType({ ...schema, type: t }, depth, indent))).join(' | ');
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${schemaToType(schema.items, depth + 1, indent)}>`;
    case 'object':
      return objectType(schema, depth, indent);
    default:
      return isSchema(schema.properties) ? objectType(schema, depth, indent) : 'unknown';
  }
}

function wrap(t: string): string {
  return /[|&]/.test(t) && !t.startsWith('{') ? `(${t})` : t;
}

function objectType(schema: Schema, depth: number, indent: string): string {
  const props = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const inner = `${indent}  `;
  const lines: string[] = [];
  for (const [name, prop] of Object.entries(props)) {
    const doc = isSchema(prop) && typeof prop.description === 'string' ? oneLine(prop.description) : '';
    if (doc) lines.push(`${inner}/** ${doc} */`);
    lines.push(`${inner}${key(name)}${required.has(name) ? '' : '?'}: ${schemaToType(prop, depth + 1, inner)};`);
  }
  const extra = schema.additionalProperties;
  if (isSchema(extra)) lines.push(`${inner}[key: string]: ${schemaToType(extra, depth + 1, inner)};`);
  if (!lines.length) return isSchema(extra) || extra === undefined ? 'Record<string, unknown>' : '{}';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\*\//g, '* /').trim();
}

export interface DeclaredTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** One tool's member of the `tools` object: its description, arguments and answer. */
export function toolDeclaration(tool: DeclaredTool, indent = ''): string {
  const first = oneLine(tool.description ?? '').split(/(?<=\.)\s/)[0] ?? '';
  const args = schemaToType(tool.inputSchema, 0, indent);
  const anyRequired = Array.isArray(tool.inputSchema.required) && tool.inputSchema.required.length > 0;
  const result = tool.outputSchema ? schemaToType(tool.outputSchema, 0, indent) : 'unknown';
  const doc = first ? `${indent}/** ${first} */\n` : '';
  return `${doc}${indent}${key(tool.name)}(args${anyRequired ? '' : '?'}: ${args}): Promise<${result}>;`;
}

/** `declare const tools: { … }` for every tool given: what `catalog.run` programs call. */
export function toolsDeclarations(tools: readonly DeclaredTool[]): string {
  const members = tools.map((t) => toolDeclaration(t, '  ')).join('\n');
  return `// await tools.NAME(args) in catalog.run; a tool's error rejects with { name: 'ToolError', message, code }.\ndeclare const tools: {\n${members}\n};\n`;
}

/** A short example of calling a tool from code, its required arguments named: `await tools.task__get({ id })`. */
export function callHint(name: string, inputSchema: Record<string, unknown>): string {
  const required = Array.isArray(inputSchema.required) ? (inputSchema.required as string[]) : [];
  const args = required.length
    ? `{ ${required.map((r) => (IDENTIFIER.test(r) ? r : `${key(r)}: …`)).join(', ')} }`
    : '';
  return `await ${toolAccessor(name)}(${args})`;
}
