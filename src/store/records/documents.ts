// Documents as a store takes them: a namespace and key of 1-200 characters, a value JSON can hold, at most 4 MiB.
// Checked by hand, not with a schema: the refusal carries `details.field`, and the value is serialised once anyway.
import { SwitchboardError } from '../../core/errors.ts';

export const DOCUMENT_MAX_BYTES = 4 * 1024 * 1024;

/** Validate a document's namespace and key (shared by every implementation so they refuse alike). */
export function checkDocumentId(namespace: unknown, key: unknown): void {
  for (const [field, v] of [
    ['namespace', namespace],
    ['key', key],
  ] as const) {
    if (typeof v !== 'string' || v.length < 1 || v.length > 200)
      throw new SwitchboardError('INVALID_INPUT', `document ${field}: expected a string of 1-200 characters.`, {
        field,
      });
  }
}

/** Serialise a document value, refusing what JSON cannot hold faithfully or what is too large. */
export function documentJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new SwitchboardError(
      'INVALID_INPUT',
      `document value: not serialisable as JSON (${(err as Error).message}).`,
    );
  }
  if (text === undefined)
    throw new SwitchboardError('INVALID_INPUT', 'document value: expected a JSON value, got undefined or a function.');
  if (Buffer.byteLength(text) > DOCUMENT_MAX_BYTES)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `document value: ${Buffer.byteLength(text)} bytes as JSON, more than the ${DOCUMENT_MAX_BYTES} allowed.`,
    );
  return text;
}
