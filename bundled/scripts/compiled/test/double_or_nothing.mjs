// test:double_or_nothing — the script branches on what the model answered.
import { auto, llm } from 'switchboard-mcp';

export default function* doubleOrNothing() {
  const drawn = yield auto(['shuf', '-i', '1-10', '-n', '1'], { why: 'draw points' });
  const points = Number(drawn.output.trim());
  const { outputs } = yield llm(`You have ${points} points. Double or nothing?`, {
    expects: { choice: '"double" or "nothing"' },
  });
  if (String(outputs.choice).toLowerCase() === 'double') yield auto(['echo', `You now have ${points * 2} points.`]);
  else yield auto(['echo', 'You walked away with nothing.']);
}
