// todo-scan: the search runs by itself; only the judgement goes to the agent.
import { auto, llm, type ShellResult } from 'switchboard-mcp';

export default function* todoScan(request: string): Generator<unknown, void, ShellResult> {
  const found = yield auto('grep -rnE "TODO|FIXME" --include=*.ts --include=*.md . || true', {
    why: 'find the TODO and FIXME comments',
  });
  const count = found.output.split('\n').filter(Boolean).length;
  yield llm(
    `There are ${count} TODO/FIXME comments (listed above). Group them by file and say which three to do first, and why.${request ? ` Focus: ${request}` : ''}`,
    { expects: { top_three: 'the three to do first, one line each' } },
  );
}
