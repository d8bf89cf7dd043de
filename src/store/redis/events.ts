// The event log on Redis: a list of 'seq<TAB>json' lines (`events`) numbered by a counter (`events:seq`).
import type { Redis } from 'ioredis';
import type { BusEvent } from '../../core/context.ts';
import type { EventLog, StoredEvent } from '../contract.ts';
import { checkInt } from '../records/common.ts';
import { eventRow } from '../records/instances.ts';
import type { Io, ScriptDef } from './scripts.ts';

export interface EventScripts {
  sbEventsAppend(k1: string, k2: string, ...args: string[]): Promise<number>;
}

export const EVENT_SCRIPTS: ScriptDef<keyof EventScripts>[] = [
  /** KEYS[1] seq counter, KEYS[2] list; ARGV: the events as JSON. Lines are 'seq<TAB>json'. */
  ['sbEventsAppend', 2, ['events-append.lua']],
];

type Client = Redis & EventScripts;

export class RedisEvents implements EventLog {
  constructor(
    private readonly r: Client,
    private readonly P: string,
    private readonly io: Io,
  ) {}

  async append(event: BusEvent): Promise<void> {
    await this.appendMany([event]);
  }

  async appendMany(events: readonly BusEvent[]): Promise<void> {
    const rows = events.map((event) => eventRow(event)[1]);
    if (rows.length === 0) return;
    await this.io(() => this.r.sbEventsAppend(`${this.P}events:seq`, `${this.P}events`, ...rows));
  }

  async recent(limit: number): Promise<StoredEvent[]> {
    const n = checkInt(limit, 'limit', 0);
    if (n === 0) return [];
    const lines = await this.io(() => this.r.lrange(`${this.P}events`, -n, -1));
    return lines.map((line) => {
      const tab = line.indexOf('\t');
      return { seq: Number(line.slice(0, tab)), event: JSON.parse(line.slice(tab + 1)) };
    });
  }

  async trim(max: number): Promise<void> {
    const n = checkInt(max, 'max', 0);
    await this.io(async () => {
      if (n === 0) await this.r.del(`${this.P}events`);
      else await this.r.ltrim(`${this.P}events`, -n, -1);
    });
  }
}
