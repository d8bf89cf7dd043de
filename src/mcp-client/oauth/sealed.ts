// The key that seals OAuth credentials in the store, kept outside it, and the sealing itself (AES-256-GCM from
// node:crypto). The key comes from SWITCHBOARD_OAUTH_KEY (32 bytes as base64 or hex), or from a key file —
// SWITCHBOARD_OAUTH_KEY_FILE, else `oauth.key` in the user's Switchboard folder — created on first use with mode
// 0600. A key file others can read is refused: it would open every stored token.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { SwitchboardError } from '../../core/errors.ts';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'v1.';

export interface SealingKey {
  key: Buffer;
  /** Where it came from, for messages: the variable's name or the file's path. */
  source: string;
}

/** The file a key is read from (or created in) when no variable gives it. */
export function keyFilePath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SWITCHBOARD_OAUTH_KEY_FILE) return env.SWITCHBOARD_OAUTH_KEY_FILE;
  return join(env.SWITCHBOARD_HOME ?? join(env.HOME ?? homedir(), '.switchboard'), 'oauth.key');
}

function decodeKey(text: string, source: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== KEY_BYTES)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `${source}: expected a ${KEY_BYTES}-byte key as base64 or 64 hex digits (e.g. the output of \`openssl rand -base64 32\`), got ${key.length} bytes.`,
    );
  return key;
}

/**
 * The sealing key: from the environment, else the key file (created with 0600 when `create` and it is missing).
 * A key file readable or writable by group or others is refused, naming the file and the command that fixes it.
 */
export function loadSealingKey(env: NodeJS.ProcessEnv = process.env, create = true): SealingKey | undefined {
  if (env.SWITCHBOARD_OAUTH_KEY)
    return { key: decodeKey(env.SWITCHBOARD_OAUTH_KEY, 'SWITCHBOARD_OAUTH_KEY'), source: 'SWITCHBOARD_OAUTH_KEY' };
  const file = keyFilePath(env);
  if (!existsSync(file)) {
    if (!create) return undefined;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // 'wx': never overwrite a key another process created a moment ago (it would orphan what it sealed).
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${randomBytes(KEY_BYTES).toString('base64')}\n`);
      closeSync(fd);
      chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const mode = statSync(file).mode & 0o777;
  if (process.platform !== 'win32' && (mode & 0o077) !== 0)
    throw new SwitchboardError(
      'FORBIDDEN',
      `The OAuth key file ${file} has permissions ${mode.toString(8).padStart(4, '0')}; it must be readable by its owner only (0600), since it opens every stored upstream token. Fix it with: chmod 600 ${file}`,
      { file },
    );
  return { key: decodeKey(readFileSync(file, 'utf8'), file), source: file };
}

/** What binds a login's sealed text to its record: the server and the login key, so a copy into another record fails. */
export function loginAad(server: string, key: string): string {
  return `${server}\u0000${key}`;
}

/** Seal `plaintext`: `v1.` + base64url(iv ‖ tag ‖ ciphertext). `aad` binds it to its record (server and principal). */
export function seal(key: SealingKey, plaintext: string, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** Open sealed text; a wrong key, another record's text or any change fails with a message saying which key was tried. */
export function unseal(key: SealingKey, sealed: string, aad: string): string {
  try {
    if (!sealed.startsWith(PREFIX)) throw new Error('not sealed text');
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new SwitchboardError(
      'UNAUTHORIZED',
      `The stored OAuth login for ${aad.replace('\u0000', ' as ')} cannot be opened with the key from ${key.source} (another key sealed it, or the record was changed). Log in again.`,
    );
  }
}
