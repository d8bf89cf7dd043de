// When a stdio server has gone unused for its `idle_timeout_ms` (issue 32 §2): requests in flight and the end of
// the last one are counted; the timer looks at them when it fires and sets itself again for the rest, so a request
// costs a counter and one clock read, not a timer of its own.
export class IdleWatch {
  private inFlight = 0;
  private lastUsedAt = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    /** 0: never idle. */
    private readonly idleMs: number,
    /** Called once the server has been unused for `idleMs` with nothing in flight. */
    private readonly onIdle: () => void,
  ) {}

  begin(): void {
    this.inFlight++;
  }

  end(): void {
    this.inFlight--;
    this.lastUsedAt = Date.now();
  }

  /** The server (re)connected: the wait starts now. */
  start(): void {
    this.lastUsedAt = Date.now();
    this.arm();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.idleMs <= 0) return;
    clearTimeout(this.timer);
    const wait = this.inFlight > 0 ? this.idleMs : this.lastUsedAt + this.idleMs - Date.now();
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (this.inFlight === 0 && Date.now() - this.lastUsedAt >= this.idleMs) this.onIdle();
        else this.arm();
      },
      Math.max(wait, 1),
    );
    this.timer.unref();
  }
}
