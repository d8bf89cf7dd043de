// Redaction for anything that leaves the process as a record (audit, logs): keys that look like secrets
// are masked, and the serialised input is capped in size.

// Matched against the key in snake_case (apiKey → api_key): a secret-like last word, so `author`, `max_tokens`
// and `session_id` stay readable while `password`, `github_token`, `x-api-key` and `Authorization` are masked.
const SECRET_KEY =
  /(^|_)(password|passwd|pass|passphrase|secret|secrets|token|api_key|apikey|access_key|private_key|authorization|auth|credential|credentials|cookie|set_cookie|bearer|client_secret|session_token)$/;

/** Keys repeat (every call of a tool has the same ones): remember the verdict, up to a bound. */
const verdicts = new Map<string, boolean>();

function isSecretKey(key: string): boolean {
  const known = verdicts.get(key);
  if (known !== undefined) return known;
  const secret = SECRET_KEY.test(toSnake(key));
  if (verdicts.size < 10_000) verdicts.set(key, secret);
  return secret;
}

function toSnake(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toLowerCase();
}
export const REDACTED = '[redacted]';

/** Deep-copy `value` with the values of secret-looking keys replaced; cycles and depth are bounded. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 32) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSecretKey(k) ? REDACTED : redact(v, depth + 1);
    return out;
  }
  return value;
}

/** Whether redact() would change anything: a secret-looking key anywhere, or nesting past its depth bound. */
function needsRedaction(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > 32) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (needsRedaction(v, depth + 1)) return true;
    return false;
  }
  for (const k in value) {
    if (isSecretKey(k) || needsRedaction((value as Record<string, unknown>)[k], depth + 1)) return true;
  }
  return false;
}

/** Redact, serialise, and cap at `maxBytes` (UTF-8), marking a cut with its original size. */
export function redactedJson(value: unknown, maxBytes = 4096): string {
  // Most inputs hold nothing to mask: serialise them as they are instead of copying them first.
  const text = JSON.stringify(needsRedaction(value) ? redact(value) : value) ?? 'null';
  // A UTF-16 length of n is at most 3n UTF-8 bytes: short texts need no byte count.
  if (text.length * 3 <= maxBytes) return text;
  const size = Buffer.byteLength(text);
  if (size <= maxBytes) return text;
  const marker = `…[truncated, ${size} bytes]`;
  let cut = Buffer.from(text)
    .subarray(0, maxBytes - Buffer.byteLength(marker))
    .toString('utf8');
  // A cut inside a multi-byte character leaves a replacement char at the end; drop it.
  cut = cut.replace(/\uFFFD$/, '');
  return cut + marker;
}

/** The redacted value itself when its JSON fits in `maxBytes`, else the capped JSON text (for event records). */
export function redactedValue(value: unknown, maxBytes = 4096): unknown {
  if (value === undefined) return undefined;
  const clean = redact(value);
  const text = JSON.stringify(clean) ?? 'null';
  return Buffer.byteLength(text) <= maxBytes ? clean : redactedJson(value, maxBytes);
}

/**
 * The form of an event that may leave the process (streams, resources, logs): call events get their input and
 * output redacted and capped. The in-process bus carries the raw event; whoever publishes it outward calls this.
 */
export function outwardEvent<E extends { type: string; input?: unknown; output?: unknown }>(event: E): E {
  if (event.type !== 'call') return event;
  const safe = { ...event, input: redactedValue(event.input) };
  if ('output' in event) safe.output = redactedValue(event.output);
  return safe;
}
