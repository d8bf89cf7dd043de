// Loading what a view shows, and loading it again when live events say it changed (coalesced, so a burst of
// events becomes one reload, not one per event).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { useLive, useLiveState } from './live.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  reload: () => void;
}

export function useData<T>(load: () => Promise<T>, deps: unknown[] = []): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
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
