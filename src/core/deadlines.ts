// Call deadlines on one timer per duration. Every call is bounded in time, so a Node timer per call
// (a Timeout object, a list insertion, a libuv clock read, and removal when the call ends) was the largest
// single cost of the pipeline itself (docs/performance.md, "One timer per duration"). Calls with the same
// timeout expire in the order they were armed, so each duration keeps its deadlines in a linked list ordered by
// arming time, and one timer waits for the list's head.

/** A deadline that has not fired yet; `cancel` is idempotent. */
export interface Deadline {
  cancel(): void;
}

interface Node extends Deadline {
  at: number;
  fire: () => void;
  prev: Node | undefined;
  next: Node | undefined;
  queue: Queue | undefined;
}

/** The deadlines of one duration, earliest first, and the timer that waits for the first. */
class Queue {
  head: Node | undefined;
  tail: Node | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires; it is re-armed only when the head is due earlier. */
  private timerAt = Number.POSITIVE_INFINITY;

  push(node: Node): void {
    node.queue = this;
    node.prev = this.tail;
    if (this.tail) this.tail.next = node;
    else {
      this.head = node;
      // The queue was empty: the timer (if any) was released; hold the process open again while a call waits.
      this.schedule(node.at);
      this.hold();
    }
    this.tail = node;
  }

  remove(node: Node): void {
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = node.next = node.queue = undefined;
    // Nothing waits: the timer may stay armed (it finds nothing when it fires) but must not keep the process alive.
    if (!this.head) this.timer?.unref();
  }

  /** Keep the process alive while the timer waits for a deadline. */
  private hold(): void {
    this.timer?.ref();
  }

  private schedule(at: number): void {
    if (this.timer && at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    // Node fires a delay beyond 2^31 - 1 ms at once; a longer one wakes up early and waits again.
    this.timer = setTimeout(this.expire, Math.min(MAX_DELAY, Math.max(1, Math.ceil(at - performance.now()))));
  }

  private readonly expire = () => {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    try {
      const now = performance.now();
      for (let node = this.head; node && node.at <= now; node = this.head) {
        this.remove(node);
        node.fire();
      }
    } finally {
      // Also when a callback threw: the deadlines behind it still fire.
      if (this.head) {
        this.schedule(this.head.at);
        this.hold();
      }
    }
  };
}

const MAX_DELAY = 2 ** 31 - 1;

/**
 * Deadlines keyed by duration.
 *
 * @example
 * const d = deadlines.arm(30_000, () => cancellation.abort(timeoutError));
 * try { await work; } finally { d.cancel(); }
 */
export class Deadlines {
  /** One queue per duration, kept once made: durations come from configuration, so there are a handful. */
  private readonly queues = new Map<number, Queue>();

  /** Call `fire` once `ms` milliseconds from now, unless cancelled first. */
  arm(ms: number, fire: () => void): Deadline {
    let queue = this.queues.get(ms);
    if (!queue) {
      queue = new Queue();
      this.queues.set(ms, queue);
    }
    const node: Node = {
      at: performance.now() + ms,
      fire,
      prev: undefined,
      next: undefined,
      queue: undefined,
      cancel: cancelNode,
    };
    queue.push(node);
    return node;
  }
}

function cancelNode(this: Node): void {
  this.queue?.remove(this);
}

/** The process's deadlines (the pipeline's call timeouts). */
export const deadlines = new Deadlines();
