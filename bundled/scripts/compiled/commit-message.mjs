// commit-message — the diff is gathered and the commit made by auto steps; only the message needs the model.
// Every command is an argument array: the message and the working directory never pass through a shell.
import { auto, llm } from 'switchboard-mcp';

export default function* commitMessage(request) {
  const stat = yield auto(['git', 'diff', '--staged', '--stat'], { why: 'what is staged' });
  if (stat.output.trim() === '') throw new Error('Nothing is staged: stage changes with git add first.');
  const diff = yield auto(['git', 'diff', '--staged'], { why: 'the staged changes' });
  const { outputs } = yield llm(
    `Write a commit message for the staged changes shown above (${diff.output.length} characters of diff): a subject line of at most 72 characters in the imperative mood saying why, a blank line, then a short body.${request ? `\nGuidance from the user: ${request}` : ''}`,
    { expects: { message: 'the full commit message' } },
  );
  yield auto(['git', 'commit', '--message', String(outputs.message).trim()], { why: 'commit' });
  yield auto(['git', 'log', '-1', '--stat'], { why: 'show the commit' });
}
