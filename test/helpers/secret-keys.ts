// The keys redaction must mask and the keys it must leave readable (docs/security.md, "Secrets in logs, audit and
// events"): one table for the unit test and the end-to-end tests.

/** A secret word anywhere in the key, in every case style; run-together words; qualified `key`/`tokens`. */
export const MUST_MASK = [
  'password',
  'dbPasswordHash',
  'secret_value',
  'secretKey',
  'tokenValue',
  'privateKeyPem',
  'GITHUB_TOKEN',
  'x-api-key',
  'apiKey',
  'API_KEY',
  'Authorization',
  'Set-Cookie',
  'client-secret',
  'JWTSecret',
  'OAuthToken',
  'oauth2',
  'accesstoken',
  'refresh_tokens',
  'session_key',
  'credentials',
  'auth_header',
  'passphrase',
  'db_pass',
  'token_count',
];

/** Whole words only: a word that merely contains a secret word, counts of model tokens, bare keys and ids. */
export const MUST_NOT_MASK = [
  'text',
  'author',
  'authors',
  'max_tokens',
  'input_tokens',
  'outputTokens',
  'tokenizer',
  'session_id',
  'session_name',
  'passRate',
  'passed',
  'bypass',
  'key',
  'sort_key',
  'idempotencyKey',
  'keyboard',
];

/** One input holding every key of the table: `SECRET-n` under the keys to mask, `clear-n` under the others. */
export function secretTableInput(): Record<string, string> {
  return Object.fromEntries([
    ...MUST_MASK.map((k, i) => [k, `SECRET-${i}`]),
    ...MUST_NOT_MASK.map((k, i) => [k, `clear-${i}`]),
  ]);
}

/** What a redacted copy of `secretTableInput()` must be. */
export function secretTableRedacted(): Record<string, string> {
  return Object.fromEntries([
    ...MUST_MASK.map((k) => [k, '[redacted]']),
    ...MUST_NOT_MASK.map((k, i) => [k, `clear-${i}`]),
  ]);
}
