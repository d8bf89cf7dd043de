// Reading cassettes: Switchboard's own, and mekara's (tests/cassettes/*.yaml of mekara), which are converted to
// Switchboard's events so the same replay runs them. Every entry is checked first: a malformed one is
// INVALID_INPUT naming the file, the entry, the field and what it must hold, never a crash halfway through.
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { SwitchboardError } from '../../core/errors.ts';
import type { AutoInputs, AutoOutcome } from './auto-runner.ts';
import type { ScriptEvent } from './events.ts';

/** Who wrote a cassette: Switchboard (`script__…` tools, results with `kind`) or mekara (`start`, results with `type`). */
export type CassetteFormat = 'switchboard' | 'mekara';

export interface Cassette {
  initial_state: { working_dir: string };
  events: ScriptEvent[];
  /** Absent means Switchboard's own. */
  format?: CassetteFormat;
  /** `initial_state.recorded_by`: `switchboard` on a mekara-format cassette Switchboard wrote (MEKARA_VCR_CASSETTE). */
  recordedBy?: string;
}

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** mekara's run tools and Switchboard's names for them. */
const MEKARA_TOOLS: Record<string, string> = {
  start: 'script__start',
  continue_compiled_script: 'script__continue_compiled_script',
  finish_nl_script: 'script__finish_nl_script',
  status: 'script__status',
};

/** mekara events for its `write_bundled` tool: they record files of the mekara package itself. */
const MEKARA_DISK_EVENTS = new Set(['path_exists', 'read_disk', 'write_disk']);

class EntryCheck {
  constructor(
    private readonly file: string,
    private readonly label: string,
  ) {}
  fail(field: string, expected: string, got?: unknown): never {
    const seen = got === undefined ? 'it is missing' : `it is ${JSON.stringify(got)?.slice(0, 120)}`;
    throw new SwitchboardError(
      'INVALID_INPUT',
      `${this.file}: ${this.label}, field '${field}': expected ${expected}, but ${seen}.`,
      { field },
    );
  }
  str(obj: Raw, field: string, path = field): string {
    if (typeof obj[field] !== 'string') this.fail(path, 'a string', obj[field]);
    return obj[field] as string;
  }
  obj(obj: Raw, field: string, path = field): Raw {
    if (!isObject(obj[field])) this.fail(path, 'a mapping', obj[field]);
    return obj[field] as Raw;
  }
  int(obj: Raw, field: string, path = field): number {
    if (!Number.isInteger(obj[field])) this.fail(path, 'an integer', obj[field]);
    return obj[field] as number;
  }
}

/**
 * A Python float with no fraction (`0.0`) as the Python runner sends it (`{"$float": 0}`): YAML and JSON readers
 * would make it the integer 0, and the script would then print `0` where it printed `0.0` when recorded.
 */
function markIntegralFloats(doc: ReturnType<typeof parseDocument>): void {
  // Walked by shape (maps and sequences hold `items`, a map's items are pairs): the build defers `yaml` and
  // exposes only the functions Switchboard needs from it.
  type Node = { items?: unknown[]; value?: unknown; type?: string; source?: string };
  const marked = (node: Node): unknown => {
    const v = node.value;
    if (typeof v !== 'number' || node.type !== 'PLAIN' || !/[.eEnN]/.test(node.source ?? '')) return undefined;
    if (Number.isFinite(v) && !Number.isInteger(v)) return undefined;
    return doc.createNode({ $float: Number.isFinite(v) ? v : String(v).toLowerCase().replace('infinity', 'inf') });
  };
  const walk = (node: unknown): void => {
    const n = node as Node | null;
    if (!n || typeof n !== 'object' || !Array.isArray(n.items)) return;
    n.items.forEach((item, i) => {
      const holder = item as { key?: unknown; value?: unknown } | null;
      const isPair = holder && typeof holder === 'object' && 'key' in holder;
      const child = (isPair ? holder.value : item) as Node | null;
      const replacement = child && typeof child === 'object' ? marked(child) : undefined;
      if (replacement === undefined) walk(child);
      else if (isPair) holder.value = replacement;
      else (n.items as unknown[])[i] = replacement;
    });
  };
  walk(doc.contents);
}

function detectFormat(events: unknown[]): CassetteFormat {
  for (const e of events) {
    if (!isObject(e)) continue;
    if (MEKARA_DISK_EVENTS.has(e.type as string)) return 'mekara';
    if ((e.type === 'mcp_tool_input' || e.type === 'mcp_tool_output') && typeof e.tool === 'string')
      return e.tool.startsWith('script__') ? 'switchboard' : 'mekara';
  }
  return 'switchboard';
}

function checkInputs(c: EntryCheck, inputs: Raw): AutoInputs {
  const type = inputs.action_type;
  const context = inputs.context ?? {};
  if (typeof context !== 'string' && !isObject(context))
    c.fail('inputs.context', 'a string (mekara) or a mapping', inputs.context);
  const kwargs = inputs.kwargs ?? {};
  if (!isObject(kwargs)) c.fail('inputs.kwargs', 'a mapping of the function arguments', inputs.kwargs);
  const common = { context: context as Raw | string, kwargs: kwargs as Raw };
  if (type === 'argv') {
    const a = inputs.action;
    if (!Array.isArray(a) || a.length === 0 || !a.every((x) => typeof x === 'string'))
      c.fail('inputs.action', 'the program and its arguments as a list of strings', a);
    return { action_type: 'argv', action: a as string[], ...common };
  }
  if (type !== 'shell' && type !== 'call') c.fail('inputs.action_type', 'shell, argv or call', type);
  return { action_type: type, action: c.str(inputs, 'action', 'inputs.action'), ...common };
}

/** An auto step's result: Switchboard's `kind` form, or mekara's `type` form converted. */
function checkResult(c: EntryCheck, result: Raw): AutoOutcome {
  const kind = result.kind ?? result.type;
  const output = result.output ?? '';
  if (typeof output !== 'string') c.fail('result.output', 'a string', result.output);
  if (kind === 'shell') return { kind, exit_code: c.int(result, 'exit_code', 'result.exit_code'), output };
  if (kind === 'call') return { kind, value: result.value ?? null, output };
  if (kind === 'exception') return { kind, exception: c.str(result, 'exception', 'result.exception'), output };
  return c.fail(result.kind !== undefined ? 'result.kind' : 'result.type', 'shell, call or exception', kind);
}

function checkEvent(file: string, raw: unknown, i: number, format: CassetteFormat): ScriptEvent {
  const type = isObject(raw) ? raw.type : undefined;
  const c = new EntryCheck(file, `event ${i + 1}${typeof type === 'string' ? ` (${type})` : ''}`);
  if (!isObject(raw)) return c.fail('(the event)', 'a mapping with a type', raw);
  if (format === 'mekara' && MEKARA_DISK_EVENTS.has(type as string))
    c.fail(
      'type',
      "an event of a script run: mekara's disk events (path_exists, read_disk, write_disk) record mekara's own package files for its write_bundled tool, which Switchboard replaces with script__write_bundled and does not replay",
      type,
    );
  const tool = (field: string) => {
    const name = c.str(raw, field);
    if (format === 'switchboard') return name;
    if (name === 'write_bundled')
      c.fail(
        field,
        "one of mekara's run tools (start, continue_compiled_script, finish_nl_script, status): write_bundled copies mekara's own bundled scripts, which Switchboard does not ship (its script__write_bundled copies Switchboard's), so that cassette cannot be replayed",
        name,
      );
    const mapped = MEKARA_TOOLS[name];
    if (!mapped) c.fail(field, `one of mekara's run tools (${Object.keys(MEKARA_TOOLS).join(', ')})`, name);
    return mapped;
  };
  switch (type) {
    case 'mcp_tool_input': {
      const input = { ...c.obj(raw, 'input') };
      // mekara records an absent working_dir as null.
      if (format === 'mekara' && input.working_dir === null) delete input.working_dir;
      return { type, tool: tool('tool'), input };
    }
    case 'auto_step':
      return {
        type,
        working_dir: c.str(raw, 'working_dir'),
        inputs: checkInputs(c, c.obj(raw, 'inputs')),
        result: checkResult(c, c.obj(raw, 'result')),
      };
    case 'mcp_tool_output': {
      if (raw.is_error !== undefined && typeof raw.is_error !== 'boolean')
        c.fail('is_error', 'true or false', raw.is_error);
      return {
        type,
        tool: tool('tool'),
        output: c.str(raw, 'output'),
        ...(raw.is_error ? { is_error: true } : {}),
      };
    }
    default:
      return c.fail('type', 'mcp_tool_input, auto_step or mcp_tool_output', type);
  }
}

/**
 * Read and check a cassette file, Switchboard's or mekara's. A malformed one is INVALID_INPUT naming the file,
 * the event and the field.
 *
 * @example
 * readCassette('test/fixtures/mekara-format/cassettes/round.yaml').format // 'mekara'
 */
export function readCassette(file: string): Cassette {
  let doc: ReturnType<typeof parseDocument>;
  let data: unknown;
  try {
    doc = parseDocument(readFileSync(file, 'utf8'));
    if (doc.errors.length) throw doc.errors[0];
    data = doc.toJS();
  } catch (err) {
    throw new SwitchboardError('INVALID_INPUT', `Cannot read cassette ${file}: ${(err as Error).message}`);
  }
  const c = data as Partial<Cassette> | null;
  if (!isObject(c) || !Array.isArray(c.events) || typeof c.initial_state?.working_dir !== 'string')
    throw new SwitchboardError(
      'INVALID_INPUT',
      `${file} is not a cassette: expected initial_state.working_dir and a list of events.`,
    );
  const format = detectFormat(c.events);
  let events = c.events as unknown[];
  if (format === 'mekara') {
    markIntegralFloats(doc);
    events = (doc.toJS() as Cassette).events;
  }
  const recordedBy = (c.initial_state as { recorded_by?: unknown }).recorded_by;
  return {
    initial_state: { working_dir: c.initial_state.working_dir },
    events: events.map((e, i) => checkEvent(file, e, i, format)),
    format,
    ...(typeof recordedBy === 'string' ? { recordedBy } : {}),
  };
}
