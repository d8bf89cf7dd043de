// Structured output: the final answer parsed as JSON and checked against the session's output_schema with Ajv.
// The runner asks the model again with the errors, up to structured_output_retries times.
import { describeAjvErrors, jsonValidator } from '../../core/ajv.ts';

/** The instruction added to the system prompt when a session has an output_schema. */
export function schemaInstruction(schema: Record<string, unknown>, name?: string): string {
  return `Your final answer must be only a JSON value (no prose, no code fence) that matches this JSON Schema${name ? ` (${name})` : ''}:\n${JSON.stringify(schema)}`;
}

/** The prompt that asks the model to try again, naming what was wrong. */
export function retryPrompt(problems: string[]): string {
  return `Your last answer did not match the required JSON Schema:\n- ${problems.join('\n- ')}\nAnswer again with only the corrected JSON value.`;
}

/** The JSON in a final text: the whole text, or the content of its first fenced block, or its outermost {…} / […]. */
export function extractJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const candidates = [text.trim()];
  const fence = /```(?:json)?\s*\n?([\s\S]*?)```/.exec(text);
  if (fence) candidates.push(fence[1].trim());
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ]) {
    const a = text.indexOf(open);
    const b = text.lastIndexOf(close);
    if (a !== -1 && b > a) candidates.push(text.slice(a, b + 1));
  }
  for (const c of candidates) {
    try {
      return { ok: true, value: JSON.parse(c) };
    } catch {
      // try the next candidate
    }
  }
  return { ok: false };
}

/**
 * Check a final text against a schema.
 *
 * @example
 * checkOutput('{"n": 1}', { type: 'object', required: ['n'] }) // → { value: { n: 1 }, problems: [] }
 */
export function checkOutput(text: string, schema: Record<string, unknown>): { value: unknown; problems: string[] } {
  const parsed = extractJson(text);
  if (!parsed.ok) return { value: null, problems: ['the answer is not valid JSON'] };
  const v = jsonValidator(schema);
  if (!v.ok) return { value: parsed.value, problems: [`the output_schema itself is invalid: ${v.message}`] };
  if (v.validate(parsed.value)) return { value: parsed.value, problems: [] };
  return { value: parsed.value, problems: describeAjvErrors(v.validate.errors) };
}
