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
  // Vendor and environment-style names: `_KEY` and `_SK` end an environment variable that holds a credential.
  'OPENAI_KEY',
  'MAPBOX_KEY',
  'STRIPE_SK',
  'GH_PAT',
  'githubPat',
  'hmacKey',
  'HMAC_KEY',
  // Secret words of their own: tokens, session cookies, one-time passwords, wallet phrases, short passwords.
  'jwt',
  'JWT_TOKEN',
  'sessionid',
  'JSESSIONID',
  'PHPSESSID',
  'passcode',
  'mnemonic',
  'seed_phrase',
  'otpSeed',
  'totp',
  'pwd',
  'DB_PWD',
  'mysql_pwd',
  '_csrf',
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
  // Words that merely contain a secret word, or share its letters.
  'monkey',
  'hotkey',
  'keys',
  'passage',
  'passenger',
  'compass',
  'skipped',
  'task',
  'path',
  'patch',
  'pattern',
  'compat',
  'secretary',
  'authority',
  'authorship',
  'jwks_uri',
  'cwd',
  // Identifiers named `key` in JSON: only an environment-style name ending in `_KEY` holds a credential.
  'primaryKey',
  'foreign_key',
  'partitionKey',
  'cacheKey',
  'publicKey',
  // A random seed, a language code (Slovak), a session's id and count.
  'seed',
  'random_seed',
  'sk',
  'title_sk',
  'session',
  'sessionId',
  'session_count',
  'phrase',
];

/**
 * Strings that hold credentials inside a URL or a DSN, under ordinary keys: what must be masked is marked SECRET,
 * and the masked form keeps the rest readable.
 */
export const URL_SECRETS: [key: string, given: string, masked: string][] = [
  [
    'DATABASE_URL',
    'postgres://app:SECRET-pg@db.internal:5432/prod?sslmode=require',
    'postgres://app:[redacted]@db.internal:5432/prod?sslmode=require',
  ],
  // A raw `@` in the password: the user information ends at the authority's last `@` (WHATWG URL).
  ['DSN', 'mysql://root:SECRET-p@ss@127.0.0.1:3306/shop', 'mysql://root:[redacted]@127.0.0.1:3306/shop'],
  [
    'MYSQL_DSN',
    'shop:SECRET-go@tcp(127.0.0.1:3306)/shop?parseTime=true',
    'shop:[redacted]@tcp(127.0.0.1:3306)/shop?parseTime=true',
  ],
  [
    'command',
    'psql redis://:SECRET-redis@cache:6379/0 && curl https://api.example.com/v1?api_key=SECRET-q&page=2',
    'psql redis://:[redacted]@cache:6379/0 && curl https://api.example.com/v1?api_key=[redacted]&page=2',
  ],
  [
    'callback',
    'https://app.example.com/cb#access_token=SECRET-frag&state=xyz',
    'https://app.example.com/cb#access_token=[redacted]&state=xyz',
  ],
  // No password: the user, port, path and an `@` in the path stay as they are.
  ['repo', 'ssh://git@github.com:22/acme/site.git', 'ssh://git@github.com:22/acme/site.git'],
  ['link', 'https://example.com/users/@ada?tab=posts', 'https://example.com/users/@ada?tab=posts'],
  ['email', 'ada@example.com', 'ada@example.com'],
];

/**
 * One input holding every key of the tables: `SECRET-n` under the keys to mask, `clear-n` under the others, and the
 * URL strings.
 */
export function secretTableInput(): Record<string, string> {
  return Object.fromEntries([
    ...MUST_MASK.map((k, i) => [k, `SECRET-${i}`]),
    ...MUST_NOT_MASK.map((k, i) => [k, `clear-${i}`]),
    ...URL_SECRETS.map(([k, given]) => [k, given]),
  ]);
}

/** What a redacted copy of `secretTableInput()` must be. */
export function secretTableRedacted(): Record<string, string> {
  return Object.fromEntries([
    ...MUST_MASK.map((k) => [k, '[redacted]']),
    ...MUST_NOT_MASK.map((k, i) => [k, `clear-${i}`]),
    ...URL_SECRETS.map(([k, , masked]) => [k, masked]),
  ]);
}
