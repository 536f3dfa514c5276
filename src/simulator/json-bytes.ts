/**
 * A reply's JSON body as UTF-8 bytes, written once. As one string a list page cost a join, a scan for Content-Length
 * and an encode in the socket, each over ~2.5 MB of two-byte text (almost every generated order holds a character
 * above Latin-1). Here each record's text is encoded into a reused scratch buffer as soon as it is made, so the page's
 * texts are never alive together (a collection in the middle of a page copied them all), and bytes already held are
 * copied; then the body is copied out at its exact size.
 */
let scratch = Buffer.allocUnsafe(1 << 20);

export interface JsonBytes {
  body: Buffer;
  /** Each part's bytes within the body, and whether it came as text (encoded here) rather than as bytes. */
  parts: { bytes: Buffer; encoded: boolean }[];
}

/** `head` + the parts of the items joined by commas + `tail`; a part is a record's JSON text or its UTF-8 bytes. */
export function jsonBytes<T>(
  head: string,
  items: readonly T[],
  partOf: (item: T) => string | Uint8Array,
  tail: string,
): JsonBytes {
  let end = 0;
  const room = (units: number) => {
    if (scratch.length - end >= units) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * scratch.length, end + units));
    scratch.copy(grown, 0, 0, end);
    scratch = grown;
  };
  // UTF-8 takes at most 3 bytes per UTF-16 unit (4 for a surrogate pair of 2).
  room(head.length * 3);
  end += scratch.write(head, end);
  const spans: { start: number; end: number; encoded: boolean }[] = [];
  for (const item of items) {
    const part = partOf(item);
    const encoded = typeof part === 'string';
    room(1 + (encoded ? part.length * 3 : part.length));
    if (spans.length > 0) scratch[end++] = 0x2c;
    const start = end;
    if (encoded) end += scratch.write(part, end);
    else {
      scratch.set(part, end);
      end += part.length;
    }
    spans.push({ start, end, encoded });
  }
  room(tail.length * 3);
  end += scratch.write(tail, end);
  const body = Buffer.from(scratch.subarray(0, end));
  return { body, parts: spans.map((span) => ({ bytes: body.subarray(span.start, span.end), encoded: span.encoded })) };
}
