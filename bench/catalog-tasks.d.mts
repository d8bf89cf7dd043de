// Types for catalog-tasks.mjs (plain JavaScript so the benchmark runs without a TypeScript loader).
export interface CatalogTask {
  query: string;
  expected: string[];
}
export const TASKS: CatalogTask[];
export const HELD_OUT: CatalogTask[];
export function rankOf(task: CatalogTask, names: string[]): number;
export function scoreSearch(
  search: (query: string) => Promise<string[]>,
  tasks?: CatalogTask[],
): Promise<{ rows: (CatalogTask & { names: string[]; rank: number })[]; top1: number; top3: number }>;
