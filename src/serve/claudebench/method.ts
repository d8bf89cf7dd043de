// What one method of the ClaudeBench JSON-RPC adapter is (rpc.ts serves them): ClaudeBench's params, checked first,
// and a translation onto Switchboard's own capabilities, each reached through the pipeline like any REST call. The
// pieces several methods share: ClaudeBench's task shape and status, and how a Switchboard refusal names its field.
import { z } from 'zod';
import type { ErrorInfo } from '../../core/errors.ts';
import type { Task } from '../../store/contract.ts';

/** Calls a Switchboard capability as the JSON-RPC caller; resolves to its value, rejects with {@link NativeFailure}. */
export type Native = (name: string, input: Record<string, unknown>) => Promise<unknown>;

/** The tools the JSON-RPC caller may see, as tools/list shows them to it. */
export type ListTools = () => Promise<{ name: string; description?: string; inputSchema: unknown }[]>;

/** A Switchboard capability refused or failed a call a method made. */
export class NativeFailure extends Error {
  constructor(readonly info: ErrorInfo) {
    super(info.message);
    this.name = 'NativeFailure';
  }
}

/** A method's params are wrong in a way its schema cannot say (a value Switchboard cannot honour): names the field. */
export class ParamsError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'ParamsError';
  }
}

/** One ClaudeBench method served here. */
export interface Method<P = Record<string, unknown>> {
  /** ClaudeBench's params for it: its own names; a key it does not define is refused by name. */
  params: z.ZodType<P>;
  /**
   * Switchboard's field → ClaudeBench's, for the capability a method calls with renamed fields, so a refusal names
   * the field the caller sent (`id` → `taskId`; `(root)` is an issue about the input as a whole): a map of first
   * path segments, or a function of the whole path.
   */
  fields?: Record<string, string> | ((path: string) => string);
  run(params: P, native: Native, tools: ListTools): Promise<unknown>;
}

/** A method, typed by its params schema. */
export function method<S extends z.ZodType<Record<string, unknown>>>(
  m: { params: S } & Omit<Method<z.output<S>>, 'params'>,
): Method {
  return m as unknown as Method;
}

/** ClaudeBench's task statuses: an assigned task is still `pending` there (its task.assign keeps the status). */
export const CB_STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;
export type CbStatus = (typeof CB_STATUSES)[number];
export const CbStatusSchema = z.enum(CB_STATUSES);

export function cbStatus(status: Task['status']): CbStatus {
  return status === 'assigned' ? 'pending' : status;
}

/** A task as ClaudeBench's task.list and task.claim answer it. */
export function cbTask(task: Task) {
  return {
    id: task.id,
    text: task.text,
    status: cbStatus(task.status),
    priority: task.priority,
    assignedTo: task.assignedTo,
    metadata: task.metadata,
    result: task.result ?? null,
    error: task.error,
    createdAt: task.createdAt,
    updatedAt: task.updatedAt,
    completedAt: task.completedAt,
  };
}

/** A task id as ClaudeBench's schemas take it (a non-empty string); Switchboard's capability checks the rest. */
export const CbId = z.string().min(1);

/** The fields ClaudeBench's hook relay (scripts/claude_code_hooks.py) adds to what it sends; kept for nothing. */
export const RELAY_FIELDS = {
  sessionId: z.string().optional(),
  timestamp: z.number().optional(),
};
