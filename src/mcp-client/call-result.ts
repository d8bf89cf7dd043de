// Every tools/call result from an upstream server is checked against the SDK's CallToolResult schema before it is
// passed on: a server that answers `{"content":"x"}` or `"isError":"yes"` is broken, and its answer must not reach
// the caller as a success. The usual shape (text blocks, optional isError and structuredContent) is recognised
// without Zod first: the schema costs about 2 µs per small result, on the call lane's measured hot path.
import { specTypeSchemas } from '@modelcontextprotocol/client';
import type { ValidateFunction } from 'ajv';
import { describeAjvErrors, jsonValidator } from '../core/ajv.ts';
import { SwitchboardError } from '../core/errors.ts';

/**
 * The result schema handed to the SDK client for upstream requests whose answers are checked where they are used
 * (tool results by `checkCallToolResult`, once, with one kind of error; an upstream task's answers field by field).
 */
export const UNCHECKED_RESULT = {
  '~standard': { version: 1 as const, vendor: 'switchboard', validate: (value: unknown) => ({ value }) },
};

/**
 * The result as it came, when it is a valid CallToolResult; otherwise an `UPSTREAM` error naming the server, the
 * tool and the first problem.
 *
 * @example
 * checkCallToolResult('fs', 'read', { content: 'x' });
 * // throws UPSTREAM "Upstream server 'fs' answered tools/call of 'read' with an invalid result: content: Invalid input: expected array, received string."
 */
export function checkCallToolResult(server: string, tool: string, result: unknown): Record<string, unknown> {
  if (isPlainTextResult(result)) return result;
  const checked = specTypeSchemas.CallToolResult['~standard'].validate(result);
  if (!('issues' in checked) || !checked.issues?.length) return result as Record<string, unknown>;
  const problem = describeIssue(checked.issues[0] as Issue);
  throw new SwitchboardError(
    'UPSTREAM',
    `Upstream server '${server}' answered tools/call of '${tool}' with an invalid result: ${problem}. The server is at fault; its answer was not passed on.`,
    { server, tool },
  );
}

function isPlainTextResult(result: unknown): result is Record<string, unknown> {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return false;
  const { content, isError, structuredContent } = result as Record<string, unknown>;
  let keys = 0;
  if (content !== undefined) {
    if (!Array.isArray(content)) return false;
    for (const block of content) {
      const b = block as { type?: unknown; text?: unknown } | null;
      if (b?.type !== 'text' || typeof b.text !== 'string' || Object.keys(b).length !== 2) return false;
    }
    keys++;
  }
  if (isError !== undefined) {
    if (typeof isError !== 'boolean') return false;
    keys++;
  }
  if (structuredContent !== undefined) {
    if (typeof structuredContent !== 'object' || structuredContent === null || Array.isArray(structuredContent))
      return false;
    keys++;
  }
  // Any other member (`_meta`, extensions) is the schema's to judge.
  return Object.keys(result).length === keys;
}

interface Issue {
  code?: string;
  path?: PropertyKey[];
  message: string;
  errors?: Issue[][];
}

/**
 * The first issue as `path: message`. For a content block that matches no kind, the issues of the kind its `type`
 * names are used (a text block without `text` says so, not that it is not an image).
 */
function describeIssue(issue: Issue, prefix: PropertyKey[] = []): string {
  const path = [...prefix, ...(issue.path ?? [])];
  if (issue.code === 'invalid_union' && issue.errors) {
    const branch = issue.errors.find((issues) => !issues.some((i) => i.path?.[0] === 'type'));
    if (branch?.[0]) return describeIssue(branch[0], path);
    return `${path.join('.')}: not a content block of a known type (text, image, audio, resource_link, resource)`;
  }
  return path.length ? `${path.join('.')}: ${issue.message}` : issue.message;
}

/**
 * A successful result of a tool that declares an `outputSchema` must carry `structuredContent` matching it, as
 * the MCP specification asks; the result as it came when it does (or the tool declares none, or the result is an
 * error: a tool error is not its output), otherwise an `UPSTREAM` error naming the server, the tool and every
 * mismatch. Checked with the hub's Ajv engines, a schema without `$schema` read as 2020-12 (the MCP default). A
 * declared schema Ajv cannot compile cannot be checked: the result passes, as the SDK client lets it.
 *
 * @example
 * checkStructuredContent('crm', 'count', { content: [], structuredContent: { n: 'x' } }, { properties: { n: { type: 'integer' } } });
 * // throws UPSTREAM "Upstream server 'crm' answered tools/call of 'count' with structuredContent that does not match the tool's outputSchema: /n must be integer. …"
 */
export function checkStructuredContent(
  server: string,
  tool: string,
  result: Record<string, unknown>,
  outputSchema: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (!outputSchema || result.isError === true) return result;
  const fault = (what: string, problems?: string[]) =>
    new SwitchboardError(
      'UPSTREAM',
      `Upstream server '${server}' answered tools/call of '${tool}' ${what}. The server is at fault; its answer was not passed on.`,
      { server, tool, ...(problems ? { problems } : {}) },
    );
  if (result.structuredContent === undefined)
    throw fault('without structuredContent, though the tool declares an outputSchema');
  const validate = outputValidator(outputSchema);
  if (!validate || validate(result.structuredContent)) return result;
  const problems = describeAjvErrors(validate.errors);
  const shown =
    problems.length > MAX_SHOWN_PROBLEMS
      ? [...problems.slice(0, MAX_SHOWN_PROBLEMS), `and ${problems.length - MAX_SHOWN_PROBLEMS} more`]
      : problems;
  throw fault(`with structuredContent that does not match the tool's outputSchema: ${shown.join('; ')}`, problems);
}

/** Mismatches named in the message; `details.problems` lists them all. */
const MAX_SHOWN_PROBLEMS = 10;

/** Validators by schema object: a listed tool keeps its schema object, so a call skips hashing the schema's text. */
const outputValidators = new WeakMap<object, ValidateFunction | undefined>();

/** A tool's outputSchema validator (2020-12 unless it says otherwise); undefined when Ajv cannot compile it. */
function outputValidator(schema: Record<string, unknown>): ValidateFunction | undefined {
  if (outputValidators.has(schema)) return outputValidators.get(schema);
  const v = jsonValidator(schema, '2020-12');
  const validate = v.ok ? v.validate : undefined;
  outputValidators.set(schema, validate);
  return validate;
}
