// Secrets an import does not copy: in a server entry read from another client, a literal credential — a header, an
// environment variable or a command-line flag whose name says secret (the redaction rule, src/observe/redact.ts), an
// `Authorization: Bearer …` value, a URL with a password or a secret-named parameter — becomes a `${VAR}` reference,
// so a project file never holds it. The variable is named after the server and the key (`GITHUB_AUTHORIZATION`);
// the user is told which to set, and where each value is, never the value.
import { isSecretKey, maskUrlSecrets } from '../observe/redact.ts';
import type { Raw } from './load.ts';

/** A variable an imported entry refers to in a secret's place. */
export interface SecretVariable {
  server: string;
  variable: string;
  /** Where the reference stands in the entry: `headers.Authorization`, `env.API_KEY`, `args[3]`, `url`. */
  field: string;
  /** The file the value is written in; absent when it was a `${VAR}` reference there already. */
  file?: string;
  /** For a header with an auth scheme: the scheme kept in front of the reference (`Bearer`). */
  scheme?: string;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g;
/** An auth scheme and its credential: `Bearer sk-…`, `Basic dXNlcjpw…`. */
const SCHEMED = /^(Bearer|Basic|Token|Bot)\s+(\S.*)$/i;
/** A header given as one argument (`mcp-remote --header "Authorization: Bearer …"`), its separator kept as written. */
const HEADER_ARG = /^([A-Za-z][A-Za-z0-9-]*)(:\s*)(\S.*)$/;
/** Switches, not secrets, whatever the key says (`DISABLE_AUTH=1`). */
const SWITCH = /^(true|false|yes|no|on|off|[01])$/i;
const LONG_FLAG = /^--([A-Za-z][A-Za-z0-9_-]*)(?:=(.*))?$/;

const referencesIn = (value: string) => [...value.matchAll(REFERENCE)].map((m) => m[1]);

/**
 * `github` + `Authorization` → `GITHUB_AUTHORIZATION`. Words the key repeats from the end of the server's name are
 * written once: `github` + `GITHUB_TOKEN` → `GITHUB_TOKEN`, `custom-api` + `API_KEY` → `CUSTOM_API_KEY`.
 */
function variableName(server: string, key: string): string {
  const words = (s: string) =>
    s
      .toUpperCase()
      .split(/[^A-Z0-9]+/)
      .filter(Boolean);
  const head = words(server);
  const tail = words(key);
  let overlap = Math.min(head.length, tail.length);
  while (overlap > 0 && head.slice(-overlap).join('_') !== tail.slice(0, overlap).join('_')) overlap--;
  const name = [...head, ...tail.slice(overlap)].join('_');
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/**
 * The entries with their secrets replaced by `${VAR}` references, and the variables to set (two secrets never share
 * a name). `files` names the file each server was read from.
 */
export function referenceSecrets(
  entries: Raw[],
  files: Record<string, string>,
): { entries: Raw[]; secrets: SecretVariable[] } {
  const secrets: SecretVariable[] = [];
  const taken = new Set<string>();
  const out = entries.map((entry) => {
    const server = String(entry.name);
    /** The reference that takes this value's place (or, already a reference, the value as it is). */
    const move = (value: string, field: string, key: string, scheme?: string): string => {
      const named = referencesIn(value);
      if (named.length) {
        for (const variable of named) secrets.push({ server, variable, field });
        return value;
      }
      let variable = variableName(server, key);
      for (let n = 2; taken.has(variable); n++) variable = `${variableName(server, key)}_${n}`;
      taken.add(variable);
      secrets.push({ server, variable, field, file: files[server], ...(scheme ? { scheme } : {}) });
      return scheme ? `${scheme} \${${variable}}` : `\${${variable}}`;
    };
    /** A secret header's value: an auth scheme stays in front of the reference. */
    const header = (value: string, field: string, key: string) => {
      const schemed = referencesIn(value).length ? null : SCHEMED.exec(value);
      return schemed ? move(schemed[2], field, key, schemed[1]) : move(value, field, key);
    };
    const hasUrlSecret = (value: string) => maskUrlSecrets(value) !== value;
    const secretValue = (key: string, value: string) => value !== '' && !SWITCH.test(value) && isSecretKey(key);
    const next: Raw = { ...entry };

    if (isMap(entry.headers)) {
      next.headers = Object.fromEntries(
        Object.entries(entry.headers).map(([k, v]) =>
          secretValue(k, v) || SCHEMED.test(v) ? [k, header(v, `headers.${k}`, k)] : [k, v],
        ),
      );
    }
    if (isMap(entry.env)) {
      next.env = Object.fromEntries(
        Object.entries(entry.env).map(([k, v]) =>
          secretValue(k, v) || hasUrlSecret(v) ? [k, move(v, `env.${k}`, k)] : [k, v],
        ),
      );
    }
    if (Array.isArray(entry.args)) {
      const args = [...(entry.args as string[])];
      for (let i = 0; i < args.length; i++) {
        const arg = args[i];
        const flag = LONG_FLAG.exec(arg);
        const asHeader = HEADER_ARG.exec(arg);
        if (flag && flag[2] !== undefined) {
          // `--api-key=…`, `--db-url=postgres://u:p@h/db`: the value moves, the flag stays.
          if (secretValue(flag[1], flag[2]) || hasUrlSecret(flag[2]))
            args[i] = `--${flag[1]}=${move(flag[2], `args[${i}]`, flag[1])}`;
        } else if (flag && isSecretKey(flag[1]) && i + 1 < args.length && !args[i + 1].startsWith('-')) {
          // `--api-key …`: the next argument is its value.
          i++;
          if (secretValue(flag[1], args[i])) args[i] = move(args[i], `args[${i}]`, flag[1]);
        } else if (asHeader && secretValue(asHeader[1], asHeader[3]))
          args[i] = `${asHeader[1]}${asHeader[2]}${header(asHeader[3], `args[${i}]`, asHeader[1])}`;
        else if (hasUrlSecret(arg)) args[i] = move(arg, `args[${i}]`, 'url');
      }
      next.args = args;
    }
    if (typeof entry.url === 'string' && hasUrlSecret(entry.url)) next.url = move(entry.url, 'url', 'url');
    const oauth = entry.oauth as Raw | undefined;
    if (typeof oauth?.client_secret === 'string' && oauth.client_secret)
      next.oauth = { ...oauth, client_secret: move(oauth.client_secret, 'oauth.client_secret', 'client_secret') };
    return next;
  });
  return { entries: out, secrets };
}

const isMap = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

/**
 * What to tell the user after an import moved secrets out: each variable to set, with the server and field it is
 * for and the file its value is in — never the value. Empty when there is nothing to set.
 */
export function secretVariablesNote(secrets: readonly SecretVariable[], written: string): string[] {
  if (secrets.length === 0) return [];
  const width = Math.max(...secrets.map((s) => s.variable.length));
  const lines = [
    '',
    `Secrets are not copied into ${written}: it refers to environment variables instead. Set these where Switchboard runs — in the environment of the agent that starts it (your shell profile, say):`,
  ];
  for (const s of secrets) {
    const what = `${s.server} ${s.field}${s.scheme ? ` (the credential after "${s.scheme} ")` : ''}`;
    const where = s.file ? `its value is the one in ${s.file}` : 'a variable there already';
    lines.push(`  ${s.variable.padEnd(width)}  ${what}; ${where}`);
  }
  return lines;
}
