// A gate a fake holds its answer behind until the test opens it: "the call is still running" is then a state the
// test controls, not a race between a fixed delay and a machine that may be slow.

export interface Gate {
  /** Resolves once `open()` was called. */
  opened: Promise<void>;
  open(): void;
  /** `value`, once the gate is open: what a fake answers through it. */
  pass<T>(value: T): Promise<T>;
}

/**
 * A closed gate.
 *
 * @example
 * const model = gate();
 * api = await startFakeAnthropic({ respond: () => model.pass('answer') });
 * // … check what holds while the turn runs …
 * model.open();
 */
export function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open, pass: (value) => opened.then(() => value) };
}
