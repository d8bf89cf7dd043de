// One JSON-RPC error table: src/ names every code it answers with, through the SDK's ProtocolErrorCode or
// src/serve/jsonrpc-errors.ts, which holds the few the SDK sends without a name. The wire values never change.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProtocolErrorCode, TransportErrorCode } from '../../src/serve/jsonrpc-errors.ts';

const SRC = join(import.meta.dirname, '../../src');
const TABLE = 'serve/jsonrpc-errors.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

describe('the JSON-RPC error table', () => {
  it('is the only place in src/ with a literal JSON-RPC error code (comments aside)', () => {
    const literals: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const name = relative(SRC, file);
      if (name === TABLE) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const code = line.replace(/\/\/.*$/, '').trim();
          if (!code.startsWith('*') && /-32\d{3}\b/.test(code)) literals.push(`${name}:${i + 1}: ${code}`);
        });
    }
    expect(literals).toEqual([]);
  });

  it('keeps the wire values', () => {
    expect(TransportErrorCode).toEqual({
      Refused: -32000,
      SessionNotFound: -32001,
      Unauthorized: -32001,
      HeaderMismatch: -32020,
    });
    expect([
      ProtocolErrorCode.ParseError,
      ProtocolErrorCode.InvalidRequest,
      ProtocolErrorCode.MethodNotFound,
      ProtocolErrorCode.InvalidParams,
      ProtocolErrorCode.InternalError,
    ]).toEqual([-32700, -32600, -32601, -32602, -32603]);
  });
});
