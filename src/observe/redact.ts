// Redaction for anything that leaves the process as a record (audit, logs): keys that look like secrets
// are masked, and the serialised input is capped in size.

// A key is secret when one of its words says so, wherever the word stands: the key is split into lower-case words
// at camelCase humps, acronyms, digits and any other character (`dbPasswordHash` → db password hash,
// `X-API-Key` → x api key, `JWTSecret` → jwt secret). Whole words only, so `author`, `tokenizer` and `session_id`
// stay readable. The rule and its exceptions are listed in docs/security.md ("Secrets in logs, audit and events").

/**
 * A secret word, or a run-together word ending in one (`accesstoken`, `dbpassword`, `oauth`). `tokens` is not
 * one: in model APIs it counts (`max_tokens`, `input_tokens`).
 */
const SECRET_WORD =
  /(token|secrets?|passwords?|passwd|passphrase|apikey|accesskey|secretkey|privatekey|auth|authorization|credentials?|cookies?|bearer)$/;

/**
 * Words that are secret only after a word saying what kind: `api_key`, `private_key`, `refresh_tokens`, but not
 * `key`, `sort_key` or `max_tokens`.
 */
const QUALIFIED_WORD = /^(key|keys|tokens)$/;
const QUALIFIER = /^(api|access|refresh|private|secret|signing|encryption|session|master|bearer)$/;

/** Verdicts per key: keys repeat (every call of a tool has the same ones), so remember them, up to a bound. */
const verdicts = new Map<string, boolean>();

function isSecretKey(key: string): boolean {
  const known = verdicts.get(key);
  if (known !== undefined) return known;
  const secret = hasSecretWord(keyWords(key));
  if (verdicts.size < 10_000) verdicts.set(key, secret);
  return secret;
}

/** The lower-case words of a key in any case style: camelCase, PascalCase, snake_case, kebab-case, UPPER_CASE. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function hasSecretWord(words: string[]): boolean {
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (SECRET_WORD.test(word)) return true;
    if (i > 0 && QUALIFIED_WORD.test(word) && QUALIFIER.test(words[i - 1])) return true;
  }
  // `pass` is a secret only as the last word (`db_pass`); before another it is a verb or a count (`pass_rate`).
  return words.at(-1) === 'pass';
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
