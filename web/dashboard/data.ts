// Loading what a view shows, and loading it again when live events say it changed (coalesced, so a burst of
// events becomes one reload, not one per event). A view starts from the last answer known, when there is one.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { call, lastCall } from './api.ts';
import { useLive, useLiveState } from './live.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  reload: () => void;
}

/** `initial`: what to show until the first load answers (the last known answer), if anything. */
export function useData<T>(load: () => Promise<T>, deps: unknown[] = [], initial?: () => T | undefined): Loaded<T> {
  const [data, setData] = useState<T | undefined>(initial);
  const [error, setError] = useState<string | undefined>(undefined);
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const reload = useCallback(() => {
    const mine = ++generation.current;
    loadRef.current().then(
      (d) => {
        // An older request answering late must not overwrite a newer one.
        if (mine !== generation.current) return;
        setData(d);
        setError(undefined);
      },
      (err: Error) => mine === generation.current && setError(err.message),
    );
  }, []);
  useEffect(reload, deps);
  // Back from offline: whatever happened meanwhile was missed, so read again.
  const live = useLiveState();
  const wasLive = useRef(live);
  useEffect(() => {
    if (live === 'live' && wasLive.current !== 'live') reload();
    wasLive.current = live;
  }, [live, reload]);
  return { data, error, reload };
}

/** A tool's answer (`call(name, input)`), shown at once from the last one known, asked again when the input changes. */
export function useCall<T = any>(name: string, input: Record<string, unknown> = {}): Loaded<T> {
  return useData(
    () => call<T>(name, input),
    [name, JSON.stringify(input)],
    () => lastCall<T>(name, input),
  );
}

/** Call `reload` once per `ms` window in which events of `types` (that pass `when`) arrived. */
export function useReloadOn(types: string[], reload: () => void, ms = 250, when: (data: any) => boolean = () => true) {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useLive(types, (_type, data) => {
    if (!when(data) || timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      reload();
    }, ms);
  });
}
