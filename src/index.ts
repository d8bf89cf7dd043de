// Public API for handler modules and embedders: define capabilities, resources and prompts with the same
// Zod instance Switchboard uses, and build a hub programmatically.
export { z } from 'zod';
export type { CancelWatch } from './core/cancellation.ts';
export type { Annotations, Capability, ContentBlock, InputRequest, Policy, RawResult } from './core/capability.ts';
export { defineCapability, inputRequired, mcpResult, rawResult } from './core/capability.ts';
export type { CallContext, McpCallInfo, Principal } from './core/context.ts';
export type { ErrorCode } from './core/errors.ts';
export { SwitchboardError } from './core/errors.ts';
export { definePrompt, defineResource, defineResourceTemplate } from './core/resource.ts';
export type { Hub, HubOptions } from './hub.ts';
export { createHub } from './hub.ts';

/** Run the `switchboard` CLI (loaded lazily so handler modules importing this package stay light). */
export async function main(argv?: string[]): Promise<void> {
  const cli = await import('./cli/main.ts');
  await cli.main(argv);
}
export type { RunOptions, RunResult } from './core/process.ts';
export { minimalEnv, runCommand } from './core/process.ts';
export type {
  AutoFunction,
  AutoFunctionContext,
  CallResult,
  CallScriptResult,
  LlmResult,
  ShellResult,
  Step,
} from './sources/scripts/steps.ts';
export { auto, callScript, llm } from './sources/scripts/steps.ts';
