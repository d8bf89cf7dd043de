// A bounded in-memory event store for one 2025 Streamable HTTP session: it makes SSE streams resumable, so a
// client that loses a stream (or is told to poll, SEP-1699) reconnects with Last-Event-ID and misses nothing.
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

/** Events kept per session; the oldest are dropped first (a client that far behind re-requests instead). */
export const DEFAULT_MAX_EVENTS = 1_000;
/** Serialised bytes kept per session, so a few large tool results cannot pin much memory. */
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

interface StoredEvent {
  streamId: StreamId;
  message: JSONRPCMessage;
  bytes: number;
}

/**
 * Create the event store for one session. Event ids are a per-session sequence, so they are only
 * meaningful together with the session id the transport already checks.
 *
 * @example
 * new NodeStreamableHTTPServerTransport({ sessionIdGenerator, eventStore: createSessionEventStore() })
 */
export function createSessionEventStore(maxEvents = DEFAULT_MAX_EVENTS, maxBytes = DEFAULT_MAX_BYTES): EventStore {
  const events = new Map<EventId, StoredEvent>();
  let seq = 0;
  let bytes = 0;
  return {
    async storeEvent(streamId, message) {
      const id = String(++seq);
      const size = JSON.stringify(message).length;
      events.set(id, { streamId, message, bytes: size });
      bytes += size;
      // Always keep the newest event, even when it alone is over the byte budget.
      while (events.size > 1 && (events.size > maxEvents || bytes > maxBytes)) {
        const [oldest, event] = events.entries().next().value as [EventId, StoredEvent];
        events.delete(oldest);
        bytes -= event.bytes;
      }
      return id;
    },
    async getStreamIdForEventId(eventId) {
      return events.get(eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const last = events.get(lastEventId);
      if (!last) throw new Error(`Event ${lastEventId} is unknown or expired; call again instead of resuming.`);
      const after = Number(lastEventId);
      for (const [id, event] of events) {
        if (Number(id) > after && event.streamId === last.streamId) await send(id, event.message);
      }
      return last.streamId;
    },
  };
}
