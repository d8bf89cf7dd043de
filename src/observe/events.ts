// The in-process event bus: every call and hub change is published here; subscribers (SSE streams,
// `events tail`, the event log) listen. A Redis-backed bus implements the same EventBus for scale-out.
import type { BusEvent, EventBus } from '../core/context.ts';

export class InProcessBus implements EventBus {
  private readonly listeners = new Set<(event: BusEvent) => void>();

  publish(event: BusEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // One failing subscriber must not stop delivery to the others.
      }
    }
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}
