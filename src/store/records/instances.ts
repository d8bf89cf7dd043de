// Hub instances and the event log as the store takes them: an instance's registration and lease, an event's row.
import { z } from 'zod';
import type { BusEvent } from '../../core/context.ts';
import { check, describe, integer, invalid, mustBe, nonEmptyText, text, toJson } from './common.ts';

/** A lease length in ms (an instance's, a session turn lock's). */
export const leaseMs = integer(1);

/** What `register` takes: the instance id, the roles it serves and its lease. */
const RegistrationSchema = z.object({
  id: nonEmptyText,
  roles: z.array(text, { error: mustBe('an array of strings') }),
  ttlMs: leaseMs,
});

export function checkRegistration(id: unknown, roles: unknown, ttlMs: unknown): z.output<typeof RegistrationSchema> {
  return check(RegistrationSchema, { id, roles, ttlMs });
}

/** A time as epoch milliseconds (an expiry sweep's `now`). */
export const epochMs = z.number({ error: mustBe('epoch milliseconds') });

/**
 * An event as the log keeps it: its type and its JSON text. Checked by hand rather than with a schema because the
 * hub appends every call's event: the check is one typeof, where an object schema would copy the event.
 */
export function eventRow(event: BusEvent): readonly [type: string, json: string] {
  if (!event || typeof event !== 'object' || typeof event.type !== 'string')
    invalid(`event must be an object with a string type, got ${describe(event)}.`);
  return [event.type, toJson(event, 'event') as string];
}
