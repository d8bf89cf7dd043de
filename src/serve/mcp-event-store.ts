// A bounded in-memory event store for one 2025 Streamable HTTP session: it makes SSE streams resumable, so a
// client that loses a stream (or is told to poll, SEP-1699) reconnects with Last-Event-ID and misses nothing.
// The SDK's transport uses it through the SDK's EventStore interface; the session's fast branch
// (mcp-session-transport.ts) stores and replays the streams it writes itself through the synchronous methods.
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

/** Events kept per session; the oldest are dropped first (a client that far behind re-requests instead). */
export const DEFAULT_MAX_EVENTS = 1_000;
/** Serialised bytes kept per session, so a few large tool results cannot pin much memory. */
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

interface StoredEvent {
  streamId: StreamId;
  /** The message's JSON text (a priming event's is `{}`). */
  text: string;
  /** The message as given, when it was given as an object. */
  message?: JSONRPCMessage;
}

export interface SessionEventStore extends EventStore {
  /** Store a message given as JSON text; returns its event id. */
  storeText(streamId: StreamId, text: string): EventId;
  /** The stream an event belongs to, while the event is kept. */
  streamOf(eventId: EventId): StreamId | undefined;
  /** The JSON text of the events of `eventId`'s stream that came after it, in order. */
  textsAfter(eventId: EventId): [EventId, string][];
}

/**
 * Create the event store for one session. Event ids are a per-session sequence, so they are only
 * meaningful together with the session id the transport already checks.
 *
 * @example
 * new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator, eventStore: createSessionEventStore() })
 */
export function createSessionEventStore(
  maxEvents = DEFAULT_MAX_EVENTS,
  maxBytes = DEFAULT_MAX_BYTES,
): SessionEventStore {
  const events = new Map<EventId, StoredEvent>();
  let seq = 0;
  let bytes = 0;
  const store = (event: StoredEvent): EventId => {
    const id = String(++seq);
    events.set(id, event);
    bytes += event.text.length;
    // Always keep the newest event, even when it alone is over the byte budget.
    while (events.size > 1 && (events.size > maxEvents || bytes > maxBytes)) {
      const [oldest, dropped] = events.entries().next().value as [EventId, StoredEvent];
      events.delete(oldest);
      bytes -= dropped.text.length;
    }
    return id;
  };
  /** The events after `lastEventId` on its stream; throws when it is unknown. */
  const after = (lastEventId: EventId): [EventId, StoredEvent][] => {
    const last = events.get(lastEventId);
    if (!last) throw new Error(`Event ${lastEventId} is unknown or expired; call again instead of resuming.`);
    const from = Number(lastEventId);
    return [...events].filter(([id, event]) => Number(id) > from && event.streamId === last.streamId);
  };
  return {
    async storeEvent(streamId, message) {
      return store({ streamId, text: JSON.stringify(message), message });
    },
    storeText: (streamId, text) => store({ streamId, text }),
    async getStreamIdForEventId(eventId) {
      return events.get(eventId)?.streamId;
    },
    streamOf: (eventId) => events.get(eventId)?.streamId,
    async replayEventsAfter(lastEventId, { send }) {
      const streamId = events.get(lastEventId)?.streamId;
      for (const [id, event] of after(lastEventId))
        await send(id, event.message ?? (JSON.parse(event.text) as JSONRPCMessage));
      return streamId as StreamId;
    },
    textsAfter: (eventId) => after(eventId).map(([id, event]) => [id, event.text]),
  };
}
