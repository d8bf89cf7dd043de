// Turning command-line input into a tool input object: `--input JSON` or `key=value` pairs.
import { CliError } from './output.ts';

/** Parse `key=value` pairs; values that parse as JSON (numbers, booleans, objects) are used as such. `a.b=1` nests. */
export function parseKeyValues(pairs: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`Expected key=value, got '${pair}'.`, 2);
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: keep it as a string.
    }
    const path = key.split('.');
    let node = out;
    for (const seg of path.slice(0, -1)) {
      if (typeof node[seg] !== 'object' || node[seg] === null) node[seg] = {};
      node = node[seg] as Record<string, unknown>;
    }
    node[path[path.length - 1]] = value;
  }
  return out;
}

export function toolInput(json: string | undefined, pairs: string[]): Record<string, unknown> {
  if (json !== undefined && pairs.length)
    throw new CliError('Give the input either as --input JSON or as key=value pairs, not both.', 2);
  if (json === undefined) return parseKeyValues(pairs);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new CliError(`--input is not valid JSON: ${(err as Error).message}`, 2);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CliError('--input must be a JSON object, e.g. --input \'{"text":"hi"}\'.', 2);
  return value as Record<string, unknown>;
}
