import { JsonInputError, ReplayPipelineError } from "../errors.js";
import { DEFAULT_MAX_LINE_BYTES } from "../limits.js";
import { ByteCanonicalizer, ByteSink } from "./byte-canonical.js";
import { DEFAULT_MAX_DEPTH, readJson } from "./json-reader.js";
import { type CanonicalOptions, canonicalize, type Profile, rejectsLoneSurrogates } from "./profiles.js";
import { assertText } from "./sniff.js";

/** One line of a JSON Lines input, as bytes. */
export interface ByteLine {
  /** 1-based line number in the file. */
  line: number;
  /** The line without its `\n` (a trailing `\r` is kept; JSON treats it as whitespace). */
  bytes: Buffer;
  /** True when the line ended with `\n` (false only for a last line without one). */
  terminated: boolean;
  /** With `skipLongLines`: the line was longer than the limit; `bytes` is empty, the rest was skipped. */
  tooLong?: boolean;
}

/** Limits for reading JSON Lines. */
export interface LineOptions {
  /** Longest line accepted, in bytes. Default 64 MiB. */
  maxLineBytes?: number;
  /**
   * Instead of failing on a line over the limit, yield it marked `tooLong` (without its bytes) and
   * go on with the next line, so one bad line does not hide the rest of the file.
   */
  skipLongLines?: boolean;
}

/**
 * Splits a byte stream into lines without holding more than one line (plus one chunk) in memory,
 * a group at a time: the lines that end in each chunk read (a line across chunks comes in the
 * later group), so a reader of many short lines waits once per chunk, not once per line. A line
 * longer than `maxLineBytes` is a `JsonInputError` as soon as it passes the limit, after the lines
 * before it.
 */
export async function* readByteLineGroups(
  source: AsyncIterable<Uint8Array>,
  options: LineOptions = {},
): AsyncGenerator<ByteLine[]> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const skip = options.skipLongLines === true;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // While skipping the rest of an over-long line: bytes are dropped until its newline.
  let skipping = false;
  let line = 1;
  let first = true;
  let group: ByteLine[] = [];
  for await (const chunk of source) {
    const buf = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (first && buf.length > 0) {
      // A binary or UTF-16 file is one error here, not one per line it happens to split into.
      first = false;
      assertText(buf);
    }
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl === -1) break;
      if (skipping) {
        skipping = false;
        group.push({ line: line++, bytes: Buffer.alloc(0), terminated: true, tooLong: true });
        start = nl + 1;
        continue;
      }
      if (pendingBytes + nl - start > maxLineBytes) {
        if (!skip) {
          if (group.length > 0) yield group;
          throw lineTooLong(maxLineBytes, line);
        }
        pending = [];
        pendingBytes = 0;
        group.push({ line: line++, bytes: Buffer.alloc(0), terminated: true, tooLong: true });
        start = nl + 1;
        continue;
      }
      let bytes = buf.subarray(start, nl);
      if (pendingBytes > 0) {
        pending.push(bytes);
        bytes = Buffer.concat(pending, pendingBytes + nl - start);
        pending = [];
        pendingBytes = 0;
      }
      group.push({ line: line++, bytes, terminated: true });
      start = nl + 1;
    }
    if (start < buf.length && !skipping) {
      pendingBytes += buf.length - start;
      if (pendingBytes > maxLineBytes) {
        if (!skip) {
          if (group.length > 0) yield group;
          throw lineTooLong(maxLineBytes, line);
        }
        pending = [];
        pendingBytes = 0;
        skipping = true;
      } else {
        // Copied: a stream may reuse its chunk buffers.
        pending.push(Buffer.from(buf.subarray(start)));
      }
    }
    if (group.length > 0) {
      yield group;
      group = [];
    }
  }
  if (skipping) yield [{ line, bytes: Buffer.alloc(0), terminated: false, tooLong: true }];
  else if (pendingBytes > 0) yield [{ line, bytes: Buffer.concat(pending, pendingBytes), terminated: false }];
}

/** The group `rest`, then the groups of `lines`: for a reader that hands on a group's last lines. */
export async function* prependGroup<T>(rest: T[], lines: AsyncIterator<T[]>): AsyncGenerator<T[]> {
  if (rest.length > 0) yield rest;
  for (let next = await lines.next(); next.done !== true; next = await lines.next()) yield next.value;
}

/** The error of line `line`, longer than `maxLineBytes`. */
function lineTooLong(maxLineBytes: number, line: number): JsonInputError {
  return new JsonInputError(
    "jsonl.line_too_long",
    `line is longer than ${maxLineBytes} bytes; expected at most ${maxLineBytes} (raise the line limit)`,
    { line },
  );
}

/** Strict UTF-8 decoding that keeps a BOM (for the reader to reject) and locates the first bad byte. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (cause) {
    const at = firstInvalidUtf8(bytes);
    let line = 1;
    let lineStart = 0;
    for (let i = bytes.indexOf(10); i !== -1 && i < at; i = bytes.indexOf(10, i + 1)) {
      line++;
      lineStart = i + 1;
    }
    const column = codePointsIn(bytes, lineStart, at) + 1;
    throw new JsonInputError(
      "json.invalid_utf8",
      `invalid UTF-8 byte 0x${(bytes[at] ?? 0).toString(16).padStart(2, "0")}; expected UTF-8 text`,
      { line, column },
      { cause },
    );
  }
}

function codePointsIn(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (((bytes[i] as number) & 0xc0) !== 0x80) n++;
  return n;
}

/** Byte offset of the first invalid UTF-8 sequence (error path only). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    let need: number;
    let min = 0;
    if (b < 0x80) need = 0;
    else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let cp = need === 0 ? b : b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (need > 0 && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) return i;
    i += need + 1;
  }
  return i;
}

/** True for a line holding only JSON whitespace: skipped, as JSON Lines readers do. */
export function isBlankBytes(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 32 && b !== 9 && b !== 13) return false;
  return true;
}

/** Options of `canonicalDocument` and `canonicalJsonLines`. */
export interface CanonicalInputOptions extends LineOptions, CanonicalOptions {
  /** File name for error messages. */
  file?: string;
}

/**
 * Appends the canonical form of one JSON text to `out`. Takes the byte fast path for `jcs` and
 * `openagents` (with `canonicalizer`, which a caller of many texts keeps); the lossless reader
 * handles `replaykit` and reports every error with its position.
 */
function canonicalInto(
  bytes: Buffer,
  profile: Profile,
  out: ByteSink,
  options: CanonicalOptions = {},
  canonicalizer: ByteCanonicalizer = new ByteCanonicalizer(),
): void {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (profile !== "replaykit" && canonicalizer.canonicalize(bytes, profile, out, { maxDepth })) return;
  const value = readJson(decodeUtf8(bytes), {
    maxDepth,
    rejectLoneSurrogates: rejectsLoneSurrogates(profile),
  });
  const text = canonicalize(value, profile, options);
  out.reserve(text.length * 3);
  out.len += out.buf.write(text, out.len, "utf8");
}

/** The canonical bytes of a whole JSON document. Errors name the file, line, column or path. */
export function canonicalDocument(
  bytes: Buffer,
  profile: Profile,
  options: CanonicalInputOptions = {},
): Buffer {
  const out = new ByteSink(bytes.length + 64);
  try {
    assertText(bytes);
    canonicalInto(bytes, profile, out, options);
  } catch (error) {
    throw error instanceof ReplayPipelineError ? error.locate({ file: options.file }) : error;
  }
  return out.view();
}

/** Size of the batches `canonicalJsonLines` yields. */
const BATCH_BYTES = 1 << 20;

/**
 * Canonicalizes every non-blank line of a JSON Lines stream: the output is each canonical line
 * followed by `\n`, yielded in batches of about 1 MiB. Errors name the file, line and column.
 */
export async function* canonicalJsonLines(
  source: AsyncIterable<Uint8Array>,
  profile: Profile,
  options: CanonicalInputOptions = {},
): AsyncGenerator<Buffer> {
  let out = new ByteSink(BATCH_BYTES + (BATCH_BYTES >> 2));
  const canonicalizer = new ByteCanonicalizer();
  const groups = readByteLineGroups(source, options);
  for (;;) {
    let next: IteratorResult<ByteLine[]>;
    try {
      next = await groups.next();
    } catch (error) {
      throw error instanceof ReplayPipelineError ? error.locate({ file: options.file }) : error;
    }
    if (next.done === true) break;
    for (const { line, bytes } of next.value) {
      if (isBlankBytes(bytes)) continue;
      try {
        canonicalInto(bytes, profile, out, options, canonicalizer);
      } catch (error) {
        // A line's document knows only its own line 1: shift to the file's line.
        throw error instanceof ReplayPipelineError
          ? error.locate({ file: options.file, lineOffset: line - 1 })
          : error;
      }
      out.reserve(1);
      out.buf[out.len++] = 10;
      if (out.len >= BATCH_BYTES) {
        yield out.view();
        out = new ByteSink(BATCH_BYTES + (BATCH_BYTES >> 2));
      }
    }
  }
  if (out.len > 0) yield out.view();
}
