import { Writable } from 'node:stream';

/**
 * A block of lines kept at the bottom of a terminal and redrawn in place, with text from elsewhere (log lines) printed
 * above it. Every line of the block is cut to the terminal's width, so each takes exactly one row and the redraw moves
 * up exactly as many rows as it drew: a narrow terminal never stacks copies. The block is ASCII without escape codes,
 * so its length is its width.
 */
export class LiveBlock {
  /** The block on stderr now, if any: log lines written to `stderrLines` go above it. */
  static shown: LiveBlock | undefined;

  /** Rows of the block on screen now. */
  private drawn = 0;
  /** Text printed without its end of line yet. */
  private partial = '';
  private stopped = false;

  constructor(
    private readonly terminal: NodeJS.WriteStream,
    private readonly render: (columns: number) => string[],
  ) {}

  /** Shows the block on stderr: log lines written to `stderrLines` from now on go above it. */
  showOnStderr(): void {
    LiveBlock.shown = this;
    this.redraw();
  }

  /** Redraws the block in place. */
  redraw(): void {
    if (!this.stopped) this.terminal.write(this.erase() + this.block());
  }

  /** Prints whole lines above the block (once each), which is drawn again below them, in one write. */
  print(text: string): void {
    if (this.stopped) {
      this.terminal.write(text);
      return;
    }
    this.partial += text;
    const end = this.partial.lastIndexOf('\n');
    if (end < 0) return;
    const lines = this.partial.slice(0, end + 1);
    this.partial = this.partial.slice(end + 1);
    this.terminal.write(this.erase() + lines + this.block());
  }

  /** Leaves the block on screen as last drawn; later prints go straight to the terminal. */
  stop(): void {
    if (LiveBlock.shown === this) LiveBlock.shown = undefined;
    if (this.partial !== '') this.terminal.write(`${this.erase()}${this.partial}\n${this.block()}`);
    this.partial = '';
    this.stopped = true;
  }

  /** From the row below the block back to its first row, clearing everything from there down. */
  private erase(): string {
    return this.drawn === 0 ? '' : `\r\x1b[${this.drawn}A\x1b[J`;
  }

  private block(): string {
    const columns = this.terminal.columns > 0 ? this.terminal.columns : 80;
    const lines = this.render(columns).map((line) => fitWidth(line, columns));
    this.drawn = lines.length;
    return lines.map((line) => `${line}\n`).join('');
  }
}

/**
 * A line cut to one row short of the width: writing into the last column leaves some terminals at a pending wrap, and
 * the next line would then take a row more than counted.
 */
export function fitWidth(line: string, columns: number): string {
  const room = Math.max(1, columns - 1);
  return line.slice(0, room);
}

/** stderr for log lines: straight through, or printed above the live block while one is shown. */
export const stderrLines = new Writable({
  write(chunk: Buffer | string, _encoding, done) {
    if (LiveBlock.shown === undefined) process.stderr.write(chunk);
    else LiveBlock.shown.print(chunk.toString());
    done();
  },
});
