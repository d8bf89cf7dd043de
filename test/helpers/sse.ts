// Following `GET /v1/events` as a client does: the stream is opened first, then the trigger runs, and the first
// event that matches is returned (with `?recent=N`, the replayed recent events count too).

/**
 * Open the event stream at `url`, run `trigger`, and return the first event `match` accepts with the stream's whole text
 * up to it. Fails when the stream ends or `ms` pass first.
 *
 * @example
 * const { event } = await eventAfter(`${base}/v1/events`, () => post(...), (e) => e.type === 'call');
 */
export async function eventAfter(
  url: string,
  trigger: () => Promise<unknown>,
  match: (event: any) => boolean,
  ms = 5_000,
): Promise<{ event: any; text: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no matching event on ${url} within ${ms} ms`)), ms);
  try {
    const res = await fetch(url, { signal: controller.signal });
    if (!res.body || !res.headers.get('content-type')?.includes('text/event-stream'))
      throw new Error(`${url} answered ${res.status} ${res.headers.get('content-type')}, not a stream`);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    await trigger();
    let text = '';
    let unread = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${url} ended before a matching event`);
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      unread += chunk;
      for (let end = unread.indexOf('\n\n'); end >= 0; end = unread.indexOf('\n\n')) {
        const data = /^data: (.*)$/m.exec(unread.slice(0, end))?.[1];
        unread = unread.slice(end + 2);
        const event = data ? JSON.parse(data) : undefined;
        if (event && match(event)) return { event, text };
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
