// Session names: the one identity of a sub-agent session on disk and in every tool.
// 1–60 characters of [A-Za-z0-9_-]; the messages are fixed so agents and people see the same words everywhere.
import { z } from 'zod';

export const SESSION_NAME_MAX = 60;

/** Why `name` is not a valid session name, or undefined when it is. */
export function sessionNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'Session name cannot be empty';
  if (name.length > SESSION_NAME_MAX) return `Session name must not exceed ${SESSION_NAME_MAX} characters`;
  if (!/^[A-Za-z0-9_-]+$/.test(name))
    return 'Session name can only contain alphanumeric characters, dashes, and underscores';
  return undefined;
}

/**
 * The Zod schema for a session name in tool input: the exact messages above, one per rule.
 *
 * @example
 * z.object({ session_name: SessionName }).safeParse({ session_name: 'a b' }); // fails: "… can only contain …"
 */
export const SessionName = z
  .string()
  .describe('Session name: 1-60 characters of letters, digits, dashes and underscores')
  .superRefine((name, ctx) => {
    const problem = sessionNameProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
