// One logger for the whole process. It writes to stderr only: stdout belongs to the stdio protocol.
import pino, { type Logger } from 'pino';

/** Create the process logger; level from SWITCHBOARD_LOG_LEVEL (default `info`, `silent` to mute). */
export function createLogger(level = process.env.SWITCHBOARD_LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { app: 'switchboard' } }, pino.destination({ fd: 2, sync: false }));
}
