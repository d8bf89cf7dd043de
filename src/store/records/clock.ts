// The clock a store reads its times by — instance leases, task and script-run creation, update and lease times — in
// epoch ms: Date.now, or one a test moves instead of waiting.

export type StoreClock = () => number;

/** The default clock: `Date.now` read at each call, so a test that fakes the system time moves it too. */
export const readClock: StoreClock = () => Date.now();
