/**
 * The `aws-chunked` content encoding of S3 uploads, decoded for the local S3 front (s3rver would
 * store the framing as the object's bytes). The SDKs send it by default for a stream body:
 * `<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n` per chunk, a zero-size chunk, then trailing
 * headers (`x-amz-checksum-crc32:<base64>\r\n`, a signed upload's `x-amz-trailer-signature`) and
 * an empty line. Chunk signatures are not checked (s3rver checks no SigV4 signature); lengths and
 * checksums are.
 */
import type { IncomingHttpHeaders } from "node:http";
import { Transform, type TransformCallback } from "node:stream";
import { Crc32, Crc32c, Crc64Nvme } from "@aws-sdk/checksums/crc";
import { Sha1, Sha256 } from "@aws-sdk/checksums/sha";

/** What the local S3 answers instead of serving a request: S3's error code (a 400) and why. */
export interface S3Problem {
  code: string;
  message: string;
}

interface Checksum {
  update(chunk: Uint8Array): void;
  digest(): Promise<Uint8Array>;
}

/** The checksums S3 takes, by header name: the SDK's own implementations of each. */
const ALGORITHMS: Record<string, { name: string; make: () => Checksum }> = {
  "x-amz-checksum-crc32": { name: "CRC32", make: () => new Crc32() },
  "x-amz-checksum-crc32c": { name: "CRC32C", make: () => new Crc32c() },
  "x-amz-checksum-crc64nvme": { name: "CRC64NVME", make: () => new Crc64Nvme() },
  "x-amz-checksum-sha1": { name: "SHA1", make: () => new Sha1() },
  "x-amz-checksum-sha256": { name: "SHA256", make: () => new Sha256() },
};
const CHECKSUM_HEADER = /^x-amz-checksum-(?!type$|algorithm$)/;

/** Longest chunk-size line (a size, a signature of 64 hex digits and room for other extensions). */
const MAX_SIZE_LINE = 4096;
/** Longest trailer section: a few headers and a signature. */
const MAX_TRAILER = 16 * 1024;
/** Most hex digits in a chunk size: 12 is 256 TiB, far above S3's 5 GiB per request. */
const SIZE_LINE = /^([0-9a-fA-F]{1,12})(;[^\r\n]*)?$/;

/** Is the request body `aws-chunked` (by its encoding or its streaming payload hash)? */
export function isAwsChunked(headers: IncomingHttpHeaders): boolean {
  const encoding = String(headers["content-encoding"] ?? "");
  const sha = String(headers["x-amz-content-sha256"] ?? "");
  return /(^|,)\s*aws-chunked\s*(,|$)/i.test(encoding) || sha.startsWith("STREAMING-");
}

/** What an `aws-chunked` request declares about its decoded body. */
interface ChunkedPlan {
  /** `x-amz-decoded-content-length`, when sent. */
  decodedLength: number | undefined;
  /** Checksums sent as headers, by header name: base64 values. */
  headerChecksums: Map<string, string>;
  /** Trailing headers announced in `x-amz-trailer`, lower case. */
  trailers: Set<string>;
}

/** Reads the plan of an `aws-chunked` request from its headers; a problem for what the local S3 cannot check. */
export function chunkedPlan(headers: IncomingHttpHeaders): { plan: ChunkedPlan } | { problem: S3Problem } {
  const declared = headers["x-amz-decoded-content-length"];
  let decodedLength: number | undefined;
  if (declared !== undefined) {
    decodedLength = /^\d{1,15}$/.test(String(declared)) ? Number(declared) : Number.NaN;
    if (!Number.isSafeInteger(decodedLength))
      return {
        problem: problem(
          "InvalidArgument",
          `x-amz-decoded-content-length '${String(declared)}' is not a length.`,
        ),
      };
  }
  const trailers = new Set(
    String(headers["x-amz-trailer"] ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ""),
  );
  const headerChecksums = new Map<string, string>();
  for (const [name, value] of Object.entries(headers))
    if (CHECKSUM_HEADER.test(name) && typeof value === "string") headerChecksums.set(name, value);
  for (const name of [...trailers, ...headerChecksums.keys()])
    if (CHECKSUM_HEADER.test(name) && ALGORITHMS[name] === undefined)
      return {
        problem: problem(
          "InvalidRequest",
          `The local S3 does not know the checksum ${name}: it checks ${Object.keys(ALGORITHMS).join(", ")}.`,
        ),
      };
  return { plan: { decodedLength, headerChecksums, trailers } };
}

/** What the decoder expects next. */
type State = "size" | "data" | "data-end" | "trailer";

/**
 * Decodes an `aws-chunked` body as it streams: the data of each chunk goes on, the framing does
 * not. At the end it checks the decoded length against `x-amz-decoded-content-length` and each
 * checksum (trailing or in a header) against the data. A body that fails fails the stream, with
 * what S3 would answer in `problem`. Memory is bounded: a chunk's data is passed on as it comes,
 * and only a size line or the trailer section is held.
 */
export class AwsChunkedDecoder extends Transform {
  /** Why the body was refused, once it was. */
  problem: S3Problem | undefined;
  /** Bytes of data decoded so far. */
  decodedLength = 0;
  private state: State = "size";
  /** The size line read so far, or the trailer section. */
  private held: Buffer[] = [];
  private heldLength = 0;
  /** Data bytes left in the current chunk, or framing bytes (`\r\n`) left after it. */
  private remaining = 0;
  private readonly checksums = new Map<string, Checksum>();

  constructor(private readonly plan: ChunkedPlan) {
    super();
    for (const name of new Set([...plan.trailers, ...plan.headerChecksums.keys()])) {
      const algorithm = ALGORITHMS[name];
      if (algorithm !== undefined) this.checksums.set(name, algorithm.make());
    }
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let at = 0;
    while (at < chunk.length) {
      const next = this.step(chunk, at);
      if (typeof next !== "number") {
        callback(this.fail(next));
        return;
      }
      at = next;
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    this.finish().then(
      (found) => callback(found === undefined ? null : this.fail(found)),
      (error: unknown) => callback(error as Error),
    );
  }

  /** Consumes from `chunk` at `at` in the current state; where it stopped, or a problem. */
  private step(chunk: Buffer, at: number): number | S3Problem {
    switch (this.state) {
      case "size":
        return this.readSize(chunk, at);
      case "data": {
        const end = Math.min(chunk.length, at + this.remaining);
        const data = chunk.subarray(at, end);
        for (const checksum of this.checksums.values()) checksum.update(data);
        this.decodedLength += data.length;
        this.remaining -= data.length;
        this.push(data);
        if (this.remaining === 0) [this.state, this.remaining] = ["data-end", 2];
        return end;
      }
      case "data-end": {
        // `\r\n` closes each chunk's data, possibly split between reads.
        if (chunk[at] !== (this.remaining === 2 ? 0x0d : 0x0a))
          return problem(
            "IncompleteBody",
            "A chunk's data is longer than its size, or not followed by CRLF.",
          );
        if (--this.remaining === 0) this.state = "size";
        return at + 1;
      }
      case "trailer":
        return this.hold(chunk.subarray(at), MAX_TRAILER, "trailer section") ?? chunk.length;
    }
  }

  /** Reads the size line, up to its `\n`; the size starts a chunk's data or, when 0, the trailer. */
  private readSize(chunk: Buffer, at: number): number | S3Problem {
    const newline = chunk.indexOf(0x0a, at);
    const end = newline === -1 ? chunk.length : newline + 1;
    const tooLong = this.hold(chunk.subarray(at, end), MAX_SIZE_LINE, "chunk-size line");
    if (tooLong !== undefined) return tooLong;
    if (newline === -1) return end;
    const line = this.release().toString("latin1");
    const match = line.endsWith("\r\n") ? SIZE_LINE.exec(line.slice(0, -2)) : null;
    if (match === null)
      return problem(
        "InvalidRequest",
        `A chunk-size line is malformed: ${JSON.stringify(line.slice(0, 80))}.`,
      );
    this.remaining = Number.parseInt(match[1] ?? "", 16);
    this.state = this.remaining === 0 ? "trailer" : "data";
    return end;
  }

  private hold(bytes: Buffer, limit: number, what: string): S3Problem | undefined {
    this.heldLength += bytes.length;
    if (this.heldLength > limit) return problem("InvalidRequest", `The ${what} is over ${limit} bytes.`);
    this.held.push(bytes);
    return undefined;
  }

  private release(): Buffer {
    const bytes = Buffer.concat(this.held);
    [this.held, this.heldLength] = [[], 0];
    return bytes;
  }

  /** At the end of the body: a complete framing, the declared length, every checksum. */
  private async finish(): Promise<S3Problem | undefined> {
    if (this.state !== "trailer")
      return problem("IncompleteBody", "The body ended before its final (zero-size) chunk.");
    const trailers = parseTrailers(this.release().toString("latin1"));
    if ("code" in trailers) return trailers;
    const { decodedLength, headerChecksums } = this.plan;
    if (decodedLength !== undefined && decodedLength !== this.decodedLength)
      return problem(
        "IncompleteBody",
        `The decoded body has ${this.decodedLength} bytes, not the ${decodedLength} of x-amz-decoded-content-length.`,
      );
    for (const name of trailers.keys())
      if (CHECKSUM_HEADER.test(name) && !this.plan.trailers.has(name))
        return problem("InvalidRequest", `The trailer ${name} was not announced in x-amz-trailer.`);
    for (const [name, checksum] of this.checksums) {
      const expected = trailers.get(name) ?? headerChecksums.get(name);
      if (expected === undefined)
        return problem("InvalidRequest", `The trailer ${name} announced in x-amz-trailer was not sent.`);
      const actual = Buffer.from(await checksum.digest()).toString("base64");
      if (actual !== expected)
        return problem(
          "BadDigest",
          `The ${ALGORITHMS[name]?.name} you specified did not match the calculated checksum.`,
        );
    }
    return undefined;
  }

  private fail(found: S3Problem): Error {
    this.problem = found;
    return new Error(`${found.code}: ${found.message}`);
  }
}

/**
 * The trailing headers after the zero-size chunk: `name:value` lines, each ending in CRLF, then an
 * empty line (a signed upload without trailers sends the empty line alone; the JavaScript SDK ends
 * a body without a checksum right after `0\r\n`). Names in lower case.
 */
function parseTrailers(text: string): Map<string, string> | S3Problem {
  const found = new Map<string, string>();
  if (text !== "" && text !== "\r\n" && !text.endsWith("\r\n\r\n"))
    return problem("IncompleteBody", "The trailer section does not end with an empty line.");
  for (const line of text.split("\r\n")) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon <= 0 || /[\s\r\n]/.test(line.slice(0, colon)))
      return problem(
        "InvalidRequest",
        `A trailing header is malformed: ${JSON.stringify(line.slice(0, 80))}.`,
      );
    found.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return found;
}

function problem(code: string, message: string): S3Problem {
  return { code, message };
}
