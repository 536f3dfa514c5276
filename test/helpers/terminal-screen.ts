/** A control sequence: ESC [ parameters letter. */
const CSI = new RegExp(`^${String.fromCharCode(27)}\\[([0-9;?]*)([A-Za-z])`);

/**
 * What a terminal of `columns` × `rows` shows after `output`: printable text with wrapping at the last column, CR, LF
 * (scrolling into the scrollback once the cursor passes the bottom row), cursor up (CUU) and erase in display (ED) and
 * line (EL). Colours (SGR) are ignored; any other escape sequence is an error, so a test notices what it cannot judge.
 * Returns every line ever shown, scrollback first, as the user would scroll through it.
 */
export function terminalScreen(output: string, columns: number, rows: number): string[] {
  const lines: string[][] = [[]];
  let top = 0;
  let row = 0;
  let column = 0;
  const lineFeed = () => {
    row++;
    if (row >= lines.length) lines.push([]);
    if (row - top >= rows) top = row - rows + 1;
  };
  for (let i = 0; i < output.length; i++) {
    const char = output[i] as string;
    if (char === '\x1b') {
      const sequence = CSI.exec(output.slice(i));
      if (sequence === null) throw new Error(`unknown escape at ${i}: ${JSON.stringify(output.slice(i, i + 10))}`);
      i += sequence[0].length - 1;
      const [, params = '', command] = sequence;
      const n = Number(params || '0');
      if (command === 'm') continue;
      if (command === 'A') row = Math.max(top, row - Math.max(1, n));
      else if (command === 'J' && n === 0) {
        lines[row] = (lines[row] ?? []).slice(0, column);
        lines.length = row + 1;
      } else if (command === 'K' && n === 2) lines[row] = [];
      else if (command === 'K' && n === 0) lines[row] = (lines[row] ?? []).slice(0, column);
      else throw new Error(`unhandled escape ${JSON.stringify(sequence[0])}`);
      continue;
    }
    if (char === '\r') column = 0;
    else if (char === '\n') lineFeed();
    else {
      if (column >= columns) {
        column = 0;
        lineFeed();
      }
      const line = lines[row] as string[];
      while (line.length < column) line.push(' ');
      line[column] = char;
      column++;
    }
  }
  return lines.map((line) => line.join('').trimEnd());
}
