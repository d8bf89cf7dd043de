// Types for catalog-workspace.mjs (plain JavaScript so the benchmark runs without a TypeScript loader).
export const UPSTREAMS: { name: string; args: string[]; env?: Record<string, string> }[];
export function catalogWorkspace(extra?: string): string;
