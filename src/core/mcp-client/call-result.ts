// Every tools/call result from an upstream server is checked against the SDK's CallToolResult schema before it is
// passed on: a server that answers `{"content":"x"}` or `"isError":"yes"` is broken, and its answer must not reach
// the caller as a success. The usual shape (text blocks, optional isError and structuredContent) is recognised
// without Zod first: the schema costs about 2 µs per small result, on the call lane's measured hot path.
import { specTypeSchemas } from '@modelcontextprotocol/client';
import { SwitchboardError } from '../errors.ts';

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
