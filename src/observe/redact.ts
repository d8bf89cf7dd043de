// Redaction for anything that leaves the process as a record (audit, logs, events): keys that look like secrets
// are masked, the password and secret-named parameters of any URL in a string are masked, and the serialised input
// is capped in size.

// A key is secret when one of its words says so, wherever the word stands: the key is split into lower-case words
// at camelCase humps, acronyms, digits and any other character (`dbPasswordHash` → db password hash,
// `X-API-Key` → x api key, `JWTSecret` → jwt secret). Whole words only, so `author`, `tokenizer` and `session_id`
// stay readable. The rule and its exceptions are listed in docs/security.md ("Secrets in logs, audit and events").

/**
 * A secret word, or a run-together word ending in one (`accesstoken`, `dbpassword`, `oauth`, `totp`, `JSESSIONID`).
 * `tokens` is not one: in model APIs it counts (`max_tokens`, `input_tokens`).
 */
const SECRET_WORD =
  /(token|secrets?|passwords?|passwd|pwd|passphrase|passcodes?|apikey|accesskey|secretkey|privatekey|auth|authorization|credentials?|cookies?|bearer|jwt|otp|mnemonics?|sessionid|sessid|csrf|xsrf)$/;

/** Secret only as a whole word: a GitHub personal access token (`GH_PAT`), not `compat` or `path`. */
const SECRET_WHOLE_WORD = /^pat$/;

/**
 * Words that are secret only after a word saying what kind: `api_key`, `hmacKey`, `refresh_tokens`, `seed_phrase`,
 * but not `key`, `sort_key`, `max_tokens` or `phrase`.
 */
const QUALIFIED_WORD = /^(key|keys|tokens|phrase)$/;
const QUALIFIER = /^(api|access|refresh|private|secret|signing|encryption|session|master|bearer|hmac|recovery|seed)$/;

/**
 * An environment-style name (`OPENAI_KEY`, `STRIPE_SK`): there a last word `KEY` or `SK` (secret key) names a
 * credential by convention, where a JSON field's `key` names an identifier (`sortKey`) and `sk` a language.
 */
const ENV_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
const ENV_SECRET_LAST_WORD = /^(key|keys|sk)$/;

/** Verdicts per key: keys repeat (every call of a tool has the same ones), so remember them, up to a bound. */
const verdicts = new Map<string, boolean>();

/** Whether a key (a field, header or environment variable name) names a secret, by the rule above. */
export function isSecretKey(key: string): boolean {
  const known = verdicts.get(key);
  if (known !== undefined) return known;
  const words = keyWords(key);
  const secret = hasSecretWord(words) || (ENV_NAME.test(key) && ENV_SECRET_LAST_WORD.test(words.at(-1) ?? ''));
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
    if (SECRET_WORD.test(word) || SECRET_WHOLE_WORD.test(word)) return true;
    if (i > 0 && QUALIFIED_WORD.test(word) && QUALIFIER.test(words[i - 1])) return true;
  }
  // `pass` is a secret only as the last word (`db_pass`); before another it is a verb or a count (`pass_rate`).
  return words.at(-1) === 'pass';
}

// Credentials inside a string: `postgres://app:hunter2@db/prod` keeps all but the password, wherever the URL stands
// (a whole value, or inside a command line or an error message). The authority ends at the first `/`, `?`, `#` or
// `\`; its user information is what comes before its last `@`, and the password what follows the first `:` of that
// (the WHATWG URL rules). Parameters of the query or fragment whose names are secret keys by the rule above
// (`?password=…`, `#access_token=…`) are masked too. A scheme is at most 32 characters, so a scan starts at most that
// far before each `://` and the work stays linear in the string's length.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{0,31}:\/\/[^\s"'<>`]+/gi;
const URL_PARAM = /([?&#;])([^=&#;?]{1,256})=([^&#;]*)/g;
/** Go's MySQL DSN, a URL without a scheme: `user:password@tcp(host:3306)/db` (the last `@` before the protocol). */
const GO_DSN = /(^|[\s"'=])([^\s:@/"'=]{1,256}):([^\s]{0,256}?)@(?=(?:tcp|tcp6|udp|unix)\()/g;

/** `text` with the passwords and secret-named parameters of the URLs in it masked; the same string when none. */
export function maskUrlSecrets(text: string): string {
  if (!text.includes('://') && !text.includes('@')) return text;
  return text
    .replace(URL_IN_TEXT, maskUrl)
    .replace(GO_DSN, (_, lead: string, user: string) => `${lead}${user}:${REDACTED}@`);
}

function maskUrl(url: string): string {
  const authority = url.indexOf('://') + 3;
  const rest = url.slice(authority).search(/[/?#\\]/);
  const end = rest < 0 ? url.length : authority + rest;
  let out = url;
  const at = url.lastIndexOf('@', end - 1);
  if (at >= authority) {
    const colon = url.indexOf(':', authority);
    if (colon >= 0 && colon < at) out = `${url.slice(0, colon + 1)}${REDACTED}${url.slice(at)}`;
  }
  const query = out.search(/[?#]/);
  if (query < 0) return out;
  const params = out
    .slice(query)
    .replace(URL_PARAM, (whole, sep: string, name: string) =>
      isSecretKey(decodedName(name)) ? `${sep}${name}=${REDACTED}` : whole,
    );
  return out.slice(0, query) + params;
}

/** A query parameter's name as its reader sees it (`api%5Fkey` → `api_key`); undecodable ones as written. */
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

export const REDACTED = '[redacted]';

/**
 * Deep-copy `value` with the values of secret-looking keys replaced and the URL secrets in its strings masked;
 * cycles and depth are bounded.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskUrlSecrets(value);
  if (depth > 32) return '[too deep]';
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSecretKey(k) ? REDACTED : redact(v, depth + 1);
    return out;
  }
  return value;
}

/**
 * Whether redact() would change anything: a secret-looking key anywhere, a string holding a URL secret, or nesting
 * past its depth bound.
 */
function needsRedaction(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return maskUrlSecrets(value) !== value;
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
 * output redacted and capped, and URL secrets masked in their error. The in-process bus carries the raw event;
 * whoever publishes it outward calls this.
 */
export function outwardEvent<E extends { type: string; input?: unknown; output?: unknown; error?: unknown }>(
  event: E,
): E {
  if (event.type !== 'call') return event;
  const safe = { ...event, input: redactedValue(event.input) };
  if ('output' in event) safe.output = redactedValue(event.output);
  if (event.error !== undefined) safe.error = redact(event.error) as E['error'];
  return safe;
}
