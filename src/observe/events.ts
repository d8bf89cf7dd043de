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

/** A fixed-size ring of the most recent items (oldest dropped first). */
export class Ring<T> {
  private readonly items: T[] = [];
  private start = 0;

  constructor(private readonly capacity: number) {}

  push(item: T): void {
    if (this.capacity <= 0) return;
    if (this.items.length < this.capacity) this.items.push(item);
    else {
      this.items[this.start] = item;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** The newest `n` items, oldest first. */
  last(n: number): T[] {
    const ordered =
      this.start === 0 ? this.items : [...this.items.slice(this.start), ...this.items.slice(0, this.start)];
    return n >= ordered.length ? [...ordered] : ordered.slice(ordered.length - n);
  }

  get size(): number {
    return this.items.length;
  }
}
