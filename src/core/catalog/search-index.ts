// The catalog's full-text index: BM25 ranking (MiniSearch) over each tool's name, title, first sentence, whole
// description, parameter names and descriptions, and the server it comes from; the hub's own tools count less unless
// the query names their domain (issue 33). It follows the registry: a change marks it stale, and the
// next search brings it up to date by adding and removing only the entries that changed.
import MiniSearch, { type SearchResult } from 'minisearch';
import { stemmer } from 'stemmer';
import type { Principal } from '../context.ts';
import { type Entry, type Registry, visible } from '../registry.ts';
import { CATALOG_TOOLS } from './exposure.ts';

/** One search result, as `catalog.search` answers it. */
export interface CatalogHit {
  /** The tool name to describe or call (`task__create`). */
  name: string;
  title?: string;
  /** The first sentence of the description. */
  description: string;
  /** Which query words matched which fields: `name: comment; description: comment, issue`. */
  why: string;
}

/** The indexed text of one tool. */
interface ToolText {
  id: string;
  name: string;
  title: string;
  /** The first sentence of the description: what the tool does, before usage notes and boilerplate. */
  lead: string;
  description: string;
  params: string;
  server: string;
}

const FIELDS = ['name', 'title', 'lead', 'description', 'params', 'server'] as const;

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could do does for from has have how i if in into is it its me my of on ' +
    'or our please should so some than that the their them then there these this those to up us was we what when ' +
    'where which who will with would you your'
  ).split(' '),
);

/**
 * Words that name the same thing in tool descriptions and in how people ask: general developer vocabulary, not a
 * list of any catalog's tools. A query word also searches the others of its group, at a lower weight.
 */
const SYNONYMS = [
  ['folder', 'directory'],
  ['comment', 'note', 'reply'],
  ['remove', 'delete', 'erase', 'forget'],
  ['rename', 'move'],
  ['show', 'list', 'display'],
  ['find', 'search', 'lookup', 'look'],
  ['make', 'create', 'new'],
  ['run', 'execute', 'launch', 'start'],
  ['change', 'update', 'modify', 'edit'],
  ['done', 'complete', 'finish', 'finished'],
  ['remember', 'memory', 'memorize', 'recall'],
  ['login', 'logged', 'signed', 'authenticated', 'authentication'],
  ['big', 'size', 'large'],
  ['thumbs', 'emoji', 'reaction', 'react'],
  ['link', 'relation', 'relationship', 'connect'],
  ['healthy', 'health', 'status'],
  ['fail', 'failed', 'error', 'errors'],
  // Version control: how people ask for git's verbs (issue 33).
  ['stage', 'staging', 'add'],
  ['history', 'log', 'logs'],
  ['undo', 'revert', 'reset', 'unstage'],
  ['switch', 'checkout'],
  ['permitted', 'allowed', 'access'],
];
/** How the ranking weighs what matched: fixed in the product, a parameter for the benchmark's comparisons. */
export interface Ranking {
  /** Per-field weight. */
  boost: Record<(typeof FIELDS)[number], number>;
  /** How much a synonym's match counts against the word the caller used (0: no synonyms). */
  synonyms: number;
  /** How much less each later word of the query counts (0.1: the second 1/1.1, the third 1/1.2…). */
  laterWords: number;
  /** BM25's term-frequency saturation (`k`) and length normalisation (`b`). */
  bm25: { k: number; b: number; d: number };
  /** What a prefix or a fuzzy match counts against an exact one. */
  weights: { prefix: number; fuzzy: number };
  /**
   * What a match in one of the hub's own tools (tasks, scripts, agents, system) counts against one in a server's,
   * unless the query names its domain ("task", "script"; "hub" for `system`): their long descriptions hold every
   * common verb. (Any word of the name was tried too: "create", "list", "status" then lift them for every request.)
   */
  hubOwn: number;
}

export const RANKING: Ranking = {
  boost: { name: 3, title: 2, lead: 2, description: 0.5, params: 0.2, server: 1.5 },
  synonyms: 0.5,
  laterWords: 0,
  bm25: { k: 1.2, b: 0.7, d: 0.5 },
  weights: { prefix: 0.375, fuzzy: 0.45 },
  hubOwn: 0.3,
};

/** Split on anything but letters and digits, and between the words of camelCase and snake_case names. */
function tokenize(text: string): string[] {
  return text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[^A-Za-z0-9]+/);
}

/** Stems by word: a catalog repeats a few thousand words, and stemming one costs microseconds. */
const stems = new Map<string, string>();

/** Lower case, no stop words, Porter stems: "comments" and "commenting" both index as "comment". */
function processTerm(term: string): string | null {
  const word = term.toLowerCase();
  if (word.length < 2 || STOP_WORDS.has(word)) return null;
  let stem = stems.get(word);
  if (stem === undefined) {
    stem = stemmer(word);
    // Bounded: words are the catalog's and the callers' queries, but a caller can send any.
    if (stems.size < 50_000) stems.set(word, stem);
  }
  return stem;
}

/** Each word's stem → the other words of its synonym groups. */
const synonymsByStem = new Map<string, string[]>();
for (const group of SYNONYMS)
  for (const word of group) {
    const stem = processTerm(word) as string;
    synonymsByStem.set(stem, [...(synonymsByStem.get(stem) ?? []), ...group.filter((w) => w !== word)]);
  }

/** The synonyms of a query's words that the query does not already hold, as one string. */
function synonymsOf(query: string): string {
  const stems = new Set(tokenize(query).flatMap((t) => processTerm(t) ?? []));
  const extra = new Set<string>();
  for (const stem of stems)
    for (const word of synonymsByStem.get(stem) ?? []) if (!stems.has(processTerm(word) as string)) extra.add(word);
  return [...extra].join(' ');
}

/** The first sentence (or line) of a description, at most 200 characters. */
export function oneLine(description: string): string {
  const first = description.trim().split(/\n|(?<=[.!?])\s/, 1)[0] ?? '';
  return first.length > 200 ? `${first.slice(0, 199)}…` : first;
}

/** Parameter names and descriptions, two levels deep (an object parameter's own fields count too). */
function paramsText(schema: Record<string, unknown>, depth = 0): string {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!properties || depth > 1) return '';
  const parts: string[] = [];
  for (const [key, prop] of Object.entries(properties)) {
    parts.push(key);
    if (typeof prop?.description === 'string') parts.push(prop.description);
    if (prop && typeof prop === 'object') parts.push(paramsText(prop, depth + 1));
  }
  return parts.join(' ');
}

/** A tool of the hub's own (task board, scripts, agents, system), not of a server, plugin or workspace handler. */
function hubOwn(source: string | undefined): boolean {
  return !/^(?:upstream|plugin):|^handlers$/.test(source ?? '');
}

/** The stems that name a hub tool's domain: its first segment, and "hub" or "switchboard" for `system.*`. */
function domainWords(name: string): string[] {
  const domain = name.split('.')[0];
  const words = domain === 'system' ? [domain, 'hub', 'switchboard'] : [domain];
  return words.flatMap((w) => processTerm(w) ?? []);
}

/** The server or plugin a tool comes from (`upstream:github` → `github`); nothing for the hub's own. */
function serverOf(source: string | undefined): string {
  const m = /^(?:upstream|plugin):(.+)$/.exec(source ?? '');
  return m ? m[1] : '';
}

function textOf(entry: Entry): ToolText {
  const { capability, tool } = entry;
  return {
    id: capability.name,
    name: capability.name,
    title: tool.title ?? '',
    lead: oneLine(tool.description),
    description: tool.description,
    params: paramsText(tool.inputSchema),
    server: serverOf(capability.source),
  };
}

/**
 * "name: comment; lead: comment, issue" from MiniSearch's term → fields map. The lead is the description's first
 * sentence: a word found there is not said again under `description`, which names only what the rest matched.
 */
function whyOf(result: SearchResult): string {
  const byField = new Map<string, string[]>();
  for (const [term, fields] of Object.entries(result.match))
    for (const field of fields) {
      if (field === 'description' && fields.includes('lead')) continue;
      byField.set(field, [...(byField.get(field) ?? []), term]);
    }
  return FIELDS.filter((f) => byField.has(f))
    .map((f) => `${f}: ${byField.get(f)?.join(', ')}`)
    .join('; ');
}

export class CatalogIndex {
  private readonly index: MiniSearch<ToolText>;
  /** The entry each indexed document was made from: a different object in the registry means it changed. */
  private readonly indexed = new Map<string, Entry>();
  /** The hub's own tools, each with the words that name its domain (`task.create` → task). */
  private readonly ownWords = new Map<string, string[]>();
  private stale = true;

  constructor(
    private readonly registry: Registry,
    private readonly ranking: Ranking = RANKING,
  ) {
    registry.onChange((kind) => {
      if (kind === 'tools') this.stale = true;
    });
    this.index = new MiniSearch<ToolText>({
      fields: [...FIELDS],
      tokenize,
      processTerm,
      searchOptions: {
        boost: ranking.boost,
        boostTerm: (_term, i) => 1 / (1 + ranking.laterWords * i),
        bm25: ranking.bm25,
        weights: ranking.weights,
        // "config" finds "configuration"; a short word must match whole, or it matches half the catalog.
        prefix: (term) => term.length >= 4,
        fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
        combineWith: 'OR',
      },
    });
  }

  /** How many tools are indexed (after bringing the index up to date). */
  get size(): number {
    this.refresh();
    return this.indexed.size;
  }

  /** The best `limit` matches for `query` among the tools `principal` may see, best first. */
  search(query: string, principal: Principal, limit: number): CatalogHit[] {
    this.refresh();
    const hits: CatalogHit[] = [];
    const synonyms = this.ranking.synonyms > 0 ? synonymsOf(query) : '';
    const asked = new Set(tokenize(query).flatMap((t) => processTerm(t) ?? []));
    const own = this.ranking.hubOwn;
    const boostDocument =
      own === 1
        ? undefined
        : (id: string) => {
            const words = this.ownWords.get(id);
            return words === undefined || words.some((w) => asked.has(w)) ? 1 : own;
          };
    const results = synonyms
      ? this.index.search(
          {
            combineWith: 'OR',
            queries: [query, { queries: [synonyms], boostTerm: () => this.ranking.synonyms }],
          },
          { boostDocument },
        )
      : this.index.search(query, { boostDocument });
    for (const result of results) {
      const entry = this.indexed.get(result.id);
      if (!entry || !visible(principal, entry.capability)) continue;
      const { tool } = entry;
      hits.push({
        name: tool.name,
        ...(tool.title ? { title: tool.title } : {}),
        description: oneLine(tool.description),
        why: whyOf(result),
      });
      if (hits.length === limit) break;
    }
    return hits;
  }

  /** Add what is new or replaced in the registry, remove what is gone. */
  private refresh(): void {
    if (!this.stale) return;
    this.stale = false;
    const seen = new Set<string>();
    for (const entry of this.registry.entries()) {
      const name = entry.capability.name;
      if (CATALOG_TOOLS.includes(name)) continue;
      seen.add(name);
      const had = this.indexed.get(name);
      if (had === entry) continue;
      if (had) this.index.discard(name);
      this.index.add(textOf(entry));
      this.indexed.set(name, entry);
      if (hubOwn(entry.capability.source)) this.ownWords.set(name, domainWords(name));
      else this.ownWords.delete(name);
    }
    for (const name of [...this.indexed.keys()]) {
      if (seen.has(name)) continue;
      this.index.discard(name);
      this.indexed.delete(name);
      this.ownWords.delete(name);
    }
  }
}

const indexes = new WeakMap<Registry, CatalogIndex>();

/** The one index of a registry, made when it is first searched. */
export function catalogIndexOf(registry: Registry): CatalogIndex {
  let index = indexes.get(registry);
  if (!index) {
    index = new CatalogIndex(registry);
    indexes.set(registry, index);
  }
  return index;
}
