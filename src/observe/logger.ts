// One logger for the whole process. It writes to stderr only: stdout belongs to the stdio protocol.
// Every record passes through redaction, so secret-looking keys never reach the log.
import pino, { type Logger } from 'pino';
import { redact } from './redact.ts';

/** Create the process logger; level from SWITCHBOARD_LOG_LEVEL (default `info`, `silent` to mute). */
export function createLogger(
  level = process.env.SWITCHBOARD_LOG_LEVEL ?? 'info',
  destination: pino.DestinationStream = pino.destination({ fd: 2, sync: false }),
): Logger {
  return pino(
    {
      level,
      base: { app: 'switchboard' },
      formatters: { log: (object) => redact(object) as Record<string, unknown> },
    },
    destination,
  );
}
