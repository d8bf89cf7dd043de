// The configuration schema: the single source of truth for what `.switchboard/config.toml` may say.
// Strict objects: an unknown key is an error that names it. Defaults live here and nowhere else.
import { z } from 'zod';

const port = z.number().int().min(0).max(65535);

export const ConfigSchema = z
  .object({
    server: z
      .object({
        host: z.string().default('127.0.0.1'),
        port: port.default(7777),
        /** Largest accepted HTTP request body in bytes (413 above it). */
        max_body_bytes: z
          .number()
          .int()
          .min(1024)
          .default(4 * 1024 * 1024),
        /** Extra Host names accepted besides the loopback names and the bound host. */
        allowed_hosts: z.array(z.string()).default([]),
        /** Extra browser Origins accepted (exact origins like `https://app.example.com`). */
        allowed_origins: z.array(z.string()).default([]),
      })
      .strict()
      .default({
        host: '127.0.0.1',
        port: 7777,
        max_body_bytes: 4 * 1024 * 1024,
        allowed_hosts: [],
        allowed_origins: [],
      }),
    store: z
      .object({
        kind: z.enum(['sqlite']).default('sqlite'),
        /** Relative to the project directory. */
        path: z.string().default('.switchboard/state.db'),
      })
      .strict()
      .default({ kind: 'sqlite', path: '.switchboard/state.db' }),
    handlers: z
      .object({
        /** Folders of handler modules (`*.ts`, `*.js`, `*.mjs`), relative to the project directory. */
        paths: z.array(z.string()).default(['.switchboard/handlers']),
      })
      .strict()
      .default({ paths: ['.switchboard/handlers'] }),
    policy: z
      .object({
        /** Default per-call timeout for capabilities that set none. */
        timeout_ms: z.number().int().min(1).default(30_000),
      })
      .strict()
      .default({ timeout_ms: 30_000 }),
    system: z
      .object({
        /** An instance that sends no heartbeat for this long expires and its tasks return to pending. */
        instance_ttl_ms: z.number().int().min(100).default(30_000),
      })
      .strict()
      .default({ instance_ttl_ms: 30_000 }),
    events: z
      .object({
        /** How many recent events the store keeps for `switchboard://events` and late subscribers. */
        retain: z.number().int().min(0).default(1000),
      })
      .strict()
      .default({ retain: 1000 }),
    stdio: z
      .object({
        /** Roles of the stdio caller; `*` means all roles. */
        roles: z.array(z.string()).default(['*']),
      })
      .strict()
      .default({ roles: ['*'] }),
  })
  .strict();

export type Config = z.output<typeof ConfigSchema>;
