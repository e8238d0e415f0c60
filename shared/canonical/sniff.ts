import { NotTextError } from "../errors.js";

/** How many leading bytes the text check looks at (git's binary heuristic looks at 8000). */
const SNIFF_BYTES = 8000;

/** Leading bytes of formats people point the tool at by mistake, with what to call them. */
const MAGIC: readonly { bytes: readonly number[]; what: string }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: "a PNG image" },
  { bytes: [0xff, 0xd8, 0xff], what: "a JPEG image" },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: "a GIF image" },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: "a PDF document" },
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: "a ZIP archive (or a file format built on ZIP)" },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], what: "an ELF executable" },
  { bytes: [0x42, 0x5a, 0x68], what: "bzip2-compressed data (only gzip is read)" },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], what: "xz-compressed data (only gzip is read)" },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], what: "zstd-compressed data (only gzip is read)" },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], what: "a 7z archive" },
  { bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66], what: "an SQLite database" },
];

/** What is wrong with a file's leading bytes as UTF-8 JSON text, or null when nothing obvious is. */
export interface NotText {
  code: "input.binary" | "input.encoding" | "json.bom";
  /** What the file is, for the message: `UTF-16 (little-endian) text`, `a PNG image`. */
  what: string;
}

function startsWith(head: Uint8Array, bytes: readonly number[]): boolean {
  return head.length >= bytes.length && bytes.every((b, i) => head[i] === b);
}

/**
 * Recognizes, from a file's first bytes, the inputs that are not UTF-8 text at all — a byte order
 * mark, UTF-16 or UTF-32 (with or without a BOM), a known binary format, NUL bytes (git's rule),
 * or mostly control bytes — so the reader can say so once instead of listing every undecodable
 * line. Plain text with a stray bad byte is left to the JSON reader, which locates it.
 */
export function sniffText(head: Uint8Array): NotText | null {
  const h = head.subarray(0, SNIFF_BYTES);
  if (startsWith(h, [0xef, 0xbb, 0xbf]))
    return { code: "json.bom", what: "UTF-8 text with a byte order mark (EF BB BF)" };
  if (startsWith(h, [0xff, 0xfe, 0x00, 0x00]))
    return { code: "input.encoding", what: "UTF-32 (little-endian) text with a byte order mark" };
  if (startsWith(h, [0x00, 0x00, 0xfe, 0xff]))
    return { code: "input.encoding", what: "UTF-32 (big-endian) text with a byte order mark" };
  if (startsWith(h, [0xff, 0xfe]))
    return { code: "input.encoding", what: "UTF-16 (little-endian) text with a byte order mark" };
  if (startsWith(h, [0xfe, 0xff]))
    return { code: "input.encoding", what: "UTF-16 (big-endian) text with a byte order mark" };
  for (const magic of MAGIC)
    if (startsWith(h, magic.bytes)) return { code: "input.binary", what: magic.what };
  if (h.length >= 4) {
    // ASCII in UTF-16/32 without a BOM: every other (or three of four) bytes are NUL.
    const [a, b, c, d] = [h[0], h[1], h[2], h[3]];
    if (a !== 0 && b === 0 && c === 0 && d === 0)
      return { code: "input.encoding", what: "UTF-32 (little-endian) text" };
    if (a === 0 && b === 0 && c === 0 && d !== 0)
      return { code: "input.encoding", what: "UTF-32 (big-endian) text" };
    if (a !== 0 && b === 0 && c !== 0 && d === 0)
      return { code: "input.encoding", what: "UTF-16 (little-endian) text" };
    if (a === 0 && b !== 0 && c === 0 && d !== 0)
      return { code: "input.encoding", what: "UTF-16 (big-endian) text" };
  }
  if (h.includes(0)) return { code: "input.binary", what: "binary data (it holds NUL bytes)" };
  let control = 0;
  for (const byte of h) if (byte < 0x09 || (byte > 0x0d && byte < 0x20) || byte === 0x7f) control++;
  if (h.length >= 16 && control * 10 > h.length && !isUtf8(h))
    return { code: "input.binary", what: "binary data (mostly control bytes, not UTF-8)" };
  return null;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    // A sequence cut at the end of the sample is not an error here.
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** The one error for a file that is not UTF-8 text, naming what it is and what was expected. */
function notTextError(found: NotText, file?: string): NotTextError {
  const expected =
    found.code === "json.bom"
      ? "UTF-8 without a byte order mark (JSON text must not start with one, RFC 8259 §8.1)"
      : "UTF-8 JSON or JSON Lines text (gzip-compressed or not)";
  return new NotTextError(found.code, `the file is ${found.what}; expected ${expected}`, {
    ...(file === undefined ? {} : { file }),
    line: 1,
    column: 1,
  });
}

/** Throws `notTextError` when `head` (a file's first bytes) is not UTF-8 text. */
export function assertText(head: Uint8Array, file?: string): void {
  const found = sniffText(head);
  if (found !== null) throw notTextError(found, file);
}
