/**
 * A bounded single-consumer queue between the crawl (many producers) and the writer. `push` resolves only once the
 * item fits under `capacity`, so a slow consumer stalls the producers and memory stays bounded. `close` ends the
 * iteration after the buffered items; `fail` ends it with an error once the buffer is drained.
 */
export class RecordChannel<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private readonly spaceWaiters: Array<() => void> = [];
  private itemWaiter: (() => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;
  private iterating = false;
  /**
   * The consumer's own time per item: from handing it over to its asking for the next, whatever the producers do.
   * The first `warmUpItems` are not counted: a writer's first records pay for its start (files, compiled code).
   */
  private consumerMs = 0;
  private consumed = 0;
  private readonly warmUpItems: number;
  private readonly onTake: (() => void) | undefined;

  /** `onTake`: told each time the consumer takes an item (producers that wait for it to catch up). */
  constructor(
    private readonly capacity: number,
    options: { warmUpItems?: number; onTake?: () => void } = {},
  ) {
    this.warmUpItems = options.warmUpItems ?? 0;
    this.onTake = options.onTake;
  }

  /** Items buffered, not yet taken by the consumer. */
  get size(): number {
    return this.buffer.length;
  }

  /** Mean ms the consumer spent on an item before it asked for the next; undefined until it is past its warm-up. */
  get consumerMsPerItem(): number | undefined {
    const counted = this.consumed - this.warmUpItems;
    return counted <= 0 ? undefined : this.consumerMs / counted;
  }

  /** Resolves when the item is buffered; rejects if the channel was failed or the consumer went away. */
  async push(item: T): Promise<void> {
    while (this.buffer.length >= this.capacity && !this.closed) {
      await new Promise<void>((resolve) => this.spaceWaiters.push(resolve));
    }
    if (this.closed) throw this.failure?.error ?? new Error('record channel is closed');
    this.buffer.push(item);
    this.wakeConsumer();
  }

  close(): void {
    this.closed = true;
    this.wakeConsumer();
    this.wakeProducers();
  }

  fail(error: unknown): void {
    if (this.closed) return;
    this.failure = { error };
    this.close();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.iterating) throw new Error('record channel can be iterated only once');
    this.iterating = true;
    try {
      for (;;) {
        const item = this.buffer.shift();
        if (item !== undefined) {
          this.wakeProducers();
          this.onTake?.();
          const handedMs = performance.now();
          yield item;
          if (++this.consumed > this.warmUpItems) this.consumerMs += performance.now() - handedMs;
          continue;
        }
        if (this.closed) {
          if (this.failure) throw this.failure.error;
          return;
        }
        await new Promise<void>((resolve) => {
          this.itemWaiter = resolve;
        });
      }
    } finally {
      // A consumer that stops early (break, throw) must not leave producers blocked forever.
      if (!this.closed) this.fail(new Error('record consumer stopped before the end of the crawl'));
    }
  }

  private wakeConsumer(): void {
    const waiter = this.itemWaiter;
    this.itemWaiter = undefined;
    waiter?.();
  }

  private wakeProducers(): void {
    for (const waiter of this.spaceWaiters.splice(0)) waiter();
  }
}
