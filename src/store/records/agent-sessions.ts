// Agent sessions as a store takes them: a name, a meta record, transcript events and a turn lock's lease. The agents
// room owns the meta's shape and checks names by its own rule first; a store refuses only what would corrupt it.
import { z } from 'zod';
import type { AgentSessionRecord, AgentTranscriptEvent } from '../contract.ts';
import { check, integer, invalid, mustBe, nonEmptyText, plainObject, toJson } from './common.ts';

/** A session name as a store takes it: any non-empty string. */
export function checkSessionName(name: unknown): string {
  return check(nonEmptyText, name, 'session_name');
}

const meta = plainObject('an object');

/** A session meta as JSON text: an object whose session_name is a name, checked before anything is written. */
export function sessionMetaJson(value: unknown, indent?: number): { name: string; json: string } {
  const checked = check(meta, value, 'session meta') as unknown as AgentSessionRecord;
  const name = checkSessionName(checked.session_name);
  let json: string;
  try {
    json = JSON.stringify(checked, null, indent);
  } catch (err) {
    invalid(`session meta must be JSON-serialisable: ${(err as Error).message}.`);
  }
  return { name, json };
}

const transcriptEvents = z.array(
  z.custom<AgentTranscriptEvent>(
    (e) =>
      typeof e === 'object' && e !== null && !Array.isArray(e) && typeof (e as { type?: unknown }).type === 'string',
    { error: mustBe('an object with a string type') },
  ),
  { error: mustBe('an array of objects') },
);

/**
 * Transcript events as JSON lines (no newline), each stamped with `ts` (the append time) unless it carries one.
 * Every event is an object with a string `type`; anything else refuses the whole batch.
 */
export function transcriptLines(events: unknown): string[] {
  const checked = check(transcriptEvents, events, 'events');
  const ts = new Date().toISOString();
  return checked.map((e, i) => toJson({ ts, ...e }, `events[${i}]`) as string);
}

/** A turn lock's lease in ms: a positive integer up to a day. */
export function checkTtl(ttlMs: unknown): number {
  return check(integer(1, 86_400_000), ttlMs, 'ttlMs');
}
