// Hook output for a model: captured as head and tail (the start names the tool, the end holds the failures),
// cut in the middle with a note, failing directories first.
/** About how much text one hook result may carry; a model's context is the budget. */
export const OUTPUT_CAP = 25_000;

/**
 * Keeps the first and last `keep` characters of a stream and counts what went past, so a test run that prints
 * megabytes costs bounded memory.
 */
export class HeadTail {
  private head = '';
  private tail = '';
  private dropped = 0;
  constructor(private readonly keep = 2 * OUTPUT_CAP) {}

  push(text: string): void {
    let rest = text;
    if (this.head.length < this.keep) {
      const room = this.keep - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (!rest) return;
    this.tail += rest;
    // Trim in steps, not per chunk: slicing a long string on every write would be quadratic.
    if (this.tail.length > this.keep * 2) {
      this.dropped += this.tail.length - this.keep;
      this.tail = this.tail.slice(-this.keep);
    }
  }

  /** Everything kept; when something was dropped between head and tail, a note says how much. */
  text(): string {
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n[… ${this.dropped.toLocaleString('en-US')} characters cut …]\n${this.tail}`;
  }
}

/**
 * Cut `text` to about `cap` characters: 40% from the start, 60% from the end, and a note with what was cut.
 *
 * @example
 * capHeadTail('x'.repeat(30_000), 25_000) // 'xxx…\n[… 5,000 characters cut from the middle …]\nxxx…'
 */
export function capHeadTail(text: string, cap = OUTPUT_CAP): string {
  if (text.length <= cap) return text;
  const head = Math.floor(cap * 0.4);
  const tail = cap - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${cut.toLocaleString('en-US')} characters cut from the middle of this output …]\n${text.slice(-tail)}`;
}

/** Splits streamed chunks into whole lines (the last partial line waits for more, or for `flush`). */
export class LineSplitter {
  private rest = '';
  constructor(private readonly onLine: (line: string) => void) {}
  push(text: string): void {
    const parts = (this.rest + text).split(/\r?\n/);
    this.rest = parts.pop() ?? '';
    for (const p of parts) this.onLine(p);
  }
  flush(): void {
    if (this.rest) this.onLine(this.rest);
    this.rest = '';
  }
}
