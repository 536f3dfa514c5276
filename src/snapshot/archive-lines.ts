import { constants, inflateRawSync } from 'node:zlib';
import { partNumberOf } from '../sink/part-writer.js';
import { lineSha256 } from '../sink/raw-archive-writer.js';
import type { Storage } from '../storage/storage.js';
import type { ManifestFile } from './manifest.js';
import type { ArchivePlace } from './record-index.js';

/** A member holds 256 KiB of text and the line that passes it: one output chunk (16 KiB chunks cost far more CPU). */
const INFLATE_CHUNK_BYTES = 320 * 1024;

/**
 * Members needed that lie at most this far apart in a part (about three members) are fetched by one ranged read, the
 * bytes between them included: fewer requests (an S3 GET costs tens of ms) for a little more transfer.
 */
const MAX_GAP_BYTES = 128 * 1024;
/** And one read spans at most this much: reads in flight times this is the memory the reads hold. */
const MAX_READ_BYTES = 1024 * 1024;
/** Ranged reads at once. */
const READS_IN_FLIGHT = 4;

export class ArchiveIndexError extends Error {
  override name = 'ArchiveIndexError';
  readonly code = 'ERR_ARCHIVE_INDEX';
}

/** A record's line as its index row places it, or why the archive does not hold that line there (damage). */
export type ArchiveLine = { text: Buffer } | { problem: string };

/** A gzip member holding lines asked for: its bytes in the part, and which of the places asked for lie in it. */
interface Member {
  start: number;
  end: number;
  wanted: number[];
}

/** One ranged read of a part: the members it covers. */
interface Read {
  file: ManifestFile;
  start: number;
  end: number;
  members: Member[];
}

/**
 * The raw text of records at their places in one resource's archive (`files`: its raw parts in the manifest), in the
 * order asked. Only the gzip members holding them are decompressed, each alone, from bytes fetched by ranged reads
 * (members close together by one read): a record's text costs its member, never the part up to it. A line must hash
 * to the sha256 its index row gives; one that does not is reported as a problem. Throws ArchiveIndexError when the
 * index names a part the manifest does not list.
 */
export async function readArchiveLines(
  storage: Storage,
  snapshotKey: string,
  files: readonly ManifestFile[],
  places: readonly ArchivePlace[],
): Promise<ArchiveLine[]> {
  const lines: ArchiveLine[] = new Array(places.length);
  const queue = plannedReads(storage, snapshotKey, files, places);
  const readOne = async ({ file, start, end, members }: Read) => {
    const bytes = await storage.readRange(`${snapshotKey}/${file.path}`, { start, end });
    // Decompressed on this thread: through zlib's thread pool the same work took a third more CPU (measured).
    for (const member of members) {
      const found = memberLines(bytes.subarray(member.start - start, member.end - start), member, file, places);
      member.wanted.forEach((i, k) => {
        lines[i] = found[k] as ArchiveLine;
      });
    }
  };
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) await readOne(next);
  };
  await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, queue.length) }, worker));
  return lines;
}

/** The members holding `places`, each once, gathered into ranged reads in part and offset order. */
function plannedReads(
  storage: Storage,
  snapshotKey: string,
  files: readonly ManifestFile[],
  places: readonly ArchivePlace[],
): Read[] {
  const parts = new Map(files.map((file) => [partNumberOf(file.path), file]));
  const members = new Map<string, { file: ManifestFile; member: Member }>();
  places.forEach((place, i) => {
    const key = `${place.part}@${place.offset}`;
    const known = members.get(key);
    if (known !== undefined) {
      known.member.wanted.push(i);
      return;
    }
    const file = parts.get(place.part);
    if (file === undefined) {
      throw new ArchiveIndexError(
        `${storage.location}/${snapshotKey}: the record index names raw part ${place.part}, which the manifest does not list`,
      );
    }
    members.set(key, { file, member: { start: place.offset, end: place.end ?? file.bytes, wanted: [i] } });
  });
  const ordered = [...members.values()].sort(
    (a, b) => a.file.path.localeCompare(b.file.path) || a.member.start - b.member.start,
  );
  const reads: Read[] = [];
  for (const { file, member } of ordered) {
    const last = reads.at(-1);
    if (
      last !== undefined &&
      last.file === file &&
      member.start - last.end <= MAX_GAP_BYTES &&
      member.end - last.start <= MAX_READ_BYTES
    ) {
      last.end = member.end;
      last.members.push(member);
    } else reads.push({ file, start: member.start, end: member.end, members: [member] });
  }
  return reads;
}

/** The lines `member.wanted` of one member (its `bytes`), each checked against its index row. */
function memberLines(
  bytes: Buffer,
  member: Member,
  file: ManifestFile,
  places: readonly ArchivePlace[],
): ArchiveLine[] {
  const wanted = member.wanted.map((i) => places[i] as ArchivePlace);
  let text: Buffer;
  try {
    const lines = Math.max(...wanted.map((place) => place.line - place.firstLine + 1));
    text = inflateLines(bytes, lines, wanted[0]?.memberLines ?? lines);
  } catch (error) {
    const problem = `${file.path} bytes ${member.start}-${member.end} are no gzip member (${(error as Error).message})`;
    return wanted.map(() => ({ problem }));
  }
  const starts = lineStarts(text);
  return wanted.map((place) => {
    const n = place.line - place.firstLine;
    const line = n >= 0 && n + 1 < starts.length ? text.subarray(starts[n], (starts[n + 1] as number) - 1) : undefined;
    return line !== undefined && lineSha256(line) === place.sha256
      ? // A copy: a view would keep the whole decompressed member alive as long as the line.
        { text: Buffer.from(line) }
      : { problem: `line ${place.line} of ${file.path} is not the record its index row describes` };
  });
}

/**
 * The text of a gzip member (of `memberLines` lines) up to its `lines`-th line at least. Text compresses about evenly,
 * so that line ends about as far into the compressed bytes as it is into the lines: that share of them, and 8% of the
 * member more, is decompressed first (on 1,000,000 simulated orders a fraction of a percent fell short), the whole
 * member only when it fell short. Each line is then checked against its index row's sha256, which is why the member's
 * own CRC is not computed.
 */
function inflateLines(member: Buffer, lines: number, memberLines: number): Buffer {
  const deflated = deflateStream(member);
  const share = lines / memberLines + 0.08;
  if (share < 1) {
    const prefix = deflated.subarray(0, Math.ceil(deflated.length * share));
    const text = inflateRawSync(prefix, { finishFlush: constants.Z_SYNC_FLUSH, chunkSize: INFLATE_CHUNK_BYTES });
    if (holdsLines(text, lines)) return text;
  }
  return inflateRawSync(deflated, { chunkSize: INFLATE_CHUNK_BYTES });
}

function holdsLines(text: Buffer, lines: number): boolean {
  let found = 0;
  for (let at = text.indexOf(10); at !== -1 && found < lines; at = text.indexOf(10, at + 1)) found++;
  return found >= lines;
}

const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

/** The deflate stream inside one gzip member (RFC 1952): after its header, before its CRC32 and size. */
function deflateStream(member: Buffer): Buffer {
  if (member.length < 18 || member[0] !== 0x1f || member[1] !== 0x8b || member[2] !== 8) {
    throw new Error('no gzip header');
  }
  const flags = member[3] as number;
  let at = 10;
  if (flags & FEXTRA) at += 2 + member.readUInt16LE(at);
  for (const flag of [FNAME, FCOMMENT]) {
    if (flags & flag) at = member.indexOf(0, at) + 1;
    if (at === 0) throw new Error('a gzip header without its end');
  }
  if (flags & FHCRC) at += 2;
  return member.subarray(at, member.length - 8);
}

/** Where each line of `text` starts, plus one past the end of the last full line. */
function lineStarts(text: Buffer): number[] {
  const starts = [0];
  for (let at = text.indexOf(10); at !== -1; at = text.indexOf(10, at + 1)) starts.push(at + 1);
  return starts;
}
