// Tables for people: cli-table3 with its colours (grey borders, red headings) only when stdout is a terminal.
// cli-table3 colours through @colors/colors, which does not look at the terminal: piped output would carry escapes.
import Table from 'cli-table3';
import { wantsColour } from './output.ts';

/** A table whose `toString()` is plain text unless stdout is a terminal (see `wantsColour`). */
export function table(head: string[], opts: { colWidths?: number[]; wordWrap?: boolean } = {}): Table.Table {
  const coloured = wantsColour(process.stdout);
  return new Table({
    head,
    ...opts,
    style: coloured ? { head: ['red'], border: ['grey'] } : { head: [], border: [] },
  }) as Table.Table;
}
