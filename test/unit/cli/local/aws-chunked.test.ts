/**
 * The local S3 front's `aws-chunked` decoder: the framing the SDKs send (unsigned with a trailing
 * checksum, signed chunks, signed trailers), split at every boundary; and every way a body can be
 * wrong refused with S3's error code.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { AwsChunkedDecoder, chunkedPlan, isAwsChunked } from "../../../../cli/local/aws-chunked.js";

const DATA = Buffer.from('{"type":"ReplayHeader","v":1}\n{"type":"Step","n":1}\n');
const SIGNATURE = "a".repeat(64);

function crc32Base64(data: Buffer): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data));
  return out.toString("base64");
}

interface Framing {
  chunkSize?: number;
  /** `;chunk-signature=…` on each size line, and the empty line after the zero-size chunk. */
  signed?: boolean;
  /** Trailing headers, in order. */
  trailers?: [string, string][];
  /** A signed trailer section ends with `x-amz-trailer-signature`. */
  trailerSignature?: boolean;
}

/** `data` framed as aws-chunked, as the SDKs frame it. */
function encode(data: Buffer, framing: Framing = {}): Buffer {
  const size = framing.chunkSize ?? 16;
  const extension = framing.signed ? `;chunk-signature=${SIGNATURE}` : "";
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) {
    const chunk = data.subarray(at, at + size);
    parts.push(Buffer.from(`${chunk.length.toString(16)}${extension}\r\n`), chunk, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(`0${extension}\r\n`));
  const trailers = framing.trailers ?? [];
  for (const [name, value] of trailers) parts.push(Buffer.from(`${name}:${value}\r\n`));
  if (framing.trailerSignature) parts.push(Buffer.from(`x-amz-trailer-signature:${SIGNATURE}\r\n`));
  if (trailers.length > 0 || framing.signed) parts.push(Buffer.from("\r\n"));
  return Buffer.concat(parts);
}

/** The headers of an upload of `data` with a trailing CRC32, as the SDK sends them. */
function sdkHeaders(data: Buffer, extra: IncomingHttpHeaders = {}): IncomingHttpHeaders {
  return {
    "content-encoding": "aws-chunked",
    "transfer-encoding": "chunked",
    "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
    "x-amz-decoded-content-length": String(data.length),
    "x-amz-trailer": "x-amz-checksum-crc32",
    ...extra,
  };
}

type Decoded = { ok: true; data: Buffer } | { ok: false; code: string; message: string };

/** Feeds `pieces` to a decoder planned from `headers`: the decoded bytes, or S3's error. */
async function decode(headers: IncomingHttpHeaders, pieces: Buffer[]): Promise<Decoded> {
  const planned = chunkedPlan(headers);
  if ("problem" in planned) return { ok: false, ...planned.problem };
  const decoder = new AwsChunkedDecoder(planned.plan);
  const out: Buffer[] = [];
  decoder.on("data", (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    decoder.once("end", resolve);
    decoder.once("error", reject);
  });
  for (const piece of pieces) decoder.write(piece);
  decoder.end();
  try {
    await done;
  } catch {
    expect(decoder.problem).toBeDefined();
    return { ok: false, code: decoder.problem?.code ?? "", message: decoder.problem?.message ?? "" };
  }
  const data = Buffer.concat(out);
  expect(decoder.decodedLength).toBe(data.length);
  return { ok: true, data };
}

describe("aws-chunked: what the SDKs send", () => {
  const body = encode(DATA, { trailers: [["x-amz-checksum-crc32", crc32Base64(DATA)]] });

  it("an unsigned body with a trailing CRC32 decodes to its data, split at every byte boundary", async () => {
    expect(await decode(sdkHeaders(DATA), [body])).toEqual({ ok: true, data: DATA });
    for (let cut = 1; cut < body.length; cut++) {
      const decoded = await decode(sdkHeaders(DATA), [body.subarray(0, cut), body.subarray(cut)]);
      expect(decoded, `cut at ${cut}`).toEqual({ ok: true, data: DATA });
    }
  });

  it("one byte at a time, and in chunks of one byte", async () => {
    const bytes = [...body].map((b) => Buffer.from([b]));
    expect(await decode(sdkHeaders(DATA), bytes)).toEqual({ ok: true, data: DATA });
    const tiny = encode(DATA, { chunkSize: 1, trailers: [["x-amz-checksum-crc32", crc32Base64(DATA)]] });
    expect(await decode(sdkHeaders(DATA), [tiny])).toEqual({ ok: true, data: DATA });
  });

  it("every checksum S3 takes, by its check value", async () => {
    // The standard check input and each algorithm's published check value.
    const check = Buffer.from("123456789");
    const values: [string, Buffer][] = [
      ["x-amz-checksum-crc32", Buffer.from("cbf43926", "hex")],
      ["x-amz-checksum-crc32c", Buffer.from("e3069283", "hex")],
      ["x-amz-checksum-crc64nvme", Buffer.from("ae8b14860a799888", "hex")],
      ["x-amz-checksum-sha1", createHash("sha1").update(check).digest()],
      ["x-amz-checksum-sha256", createHash("sha256").update(check).digest()],
    ];
    for (const [name, value] of values) {
      const framed = encode(check, { chunkSize: 4, trailers: [[name, value.toString("base64")]] });
      const headers = sdkHeaders(check, { "x-amz-trailer": name });
      expect(await decode(headers, [framed]), name).toEqual({ ok: true, data: check });
      const wrong = Buffer.from(value);
      wrong[0] = (wrong[0] ?? 0) ^ 1;
      const bad = encode(check, { chunkSize: 4, trailers: [[name, wrong.toString("base64")]] });
      expect(await decode(headers, [bad]), name).toMatchObject({ ok: false, code: "BadDigest" });
    }
  });

  it("signed chunks (STREAMING-AWS4-HMAC-SHA256-PAYLOAD), no trailer", async () => {
    const signed = encode(DATA, { signed: true });
    const headers = sdkHeaders(DATA, { "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" });
    delete headers["x-amz-trailer"];
    for (let cut = 1; cut < signed.length; cut += 7) {
      const decoded = await decode(headers, [signed.subarray(0, cut), signed.subarray(cut)]);
      expect(decoded, `cut at ${cut}`).toEqual({ ok: true, data: DATA });
    }
  });

  it("signed chunks with a signed trailer (STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER)", async () => {
    const signed = encode(DATA, {
      signed: true,
      trailers: [["x-amz-checksum-crc32", crc32Base64(DATA)]],
      trailerSignature: true,
    });
    const headers = sdkHeaders(DATA, {
      "x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
    });
    expect(await decode(headers, [signed])).toEqual({ ok: true, data: DATA });
  });

  it("a checksum sent as a header rather than a trailer is checked too", async () => {
    const headers = sdkHeaders(DATA, { "x-amz-checksum-crc32": crc32Base64(DATA) });
    delete headers["x-amz-trailer"];
    expect(await decode(headers, [encode(DATA)])).toEqual({ ok: true, data: DATA });
    headers["x-amz-checksum-crc32"] = crc32Base64(Buffer.from("other"));
    expect(await decode(headers, [encode(DATA)])).toMatchObject({ ok: false, code: "BadDigest" });
  });

  it("the JavaScript SDK's body without a checksum (ends right after 0\\r\\n), and an empty body", async () => {
    const headers = sdkHeaders(DATA);
    delete headers["x-amz-trailer"];
    expect(await decode(headers, [encode(DATA)])).toEqual({ ok: true, data: DATA });
    const empty = Buffer.alloc(0);
    const trailer: [string, string][] = [["x-amz-checksum-crc32", crc32Base64(empty)]];
    expect(await decode(sdkHeaders(empty), [encode(empty, { trailers: trailer })])).toEqual({
      ok: true,
      data: empty,
    });
  });
});

describe("aws-chunked: bodies refused with S3's error", () => {
  const good = encode(DATA, { trailers: [["x-amz-checksum-crc32", crc32Base64(DATA)]] });

  it("a wrong trailing checksum: BadDigest naming the algorithm", async () => {
    const bad = encode(DATA, { trailers: [["x-amz-checksum-crc32", crc32Base64(Buffer.from("x"))]] });
    expect(await decode(sdkHeaders(DATA), [bad])).toMatchObject({
      ok: false,
      code: "BadDigest",
      message: expect.stringContaining("CRC32"),
    });
  });

  it("a body cut short anywhere: never decoded as whole", async () => {
    for (let cut = 0; cut < good.length; cut++) {
      const decoded = await decode(sdkHeaders(DATA), [good.subarray(0, cut)]);
      expect(decoded.ok, `cut at ${cut}`).toBe(false);
      if (!decoded.ok) expect(["IncompleteBody", "InvalidRequest"], `cut at ${cut}`).toContain(decoded.code);
    }
  });

  it("decoded bytes other than x-amz-decoded-content-length: IncompleteBody", async () => {
    const headers = sdkHeaders(DATA, { "x-amz-decoded-content-length": String(DATA.length + 1) });
    expect(await decode(headers, [good])).toMatchObject({ ok: false, code: "IncompleteBody" });
  });

  it("malformed framing: a size that is not hex, data longer than its size, a trailer without a colon", async () => {
    const headers = sdkHeaders(DATA);
    const notHex = Buffer.concat([Buffer.from("zz\r\n"), good]);
    expect(await decode(headers, [notHex])).toMatchObject({ ok: false, code: "InvalidRequest" });
    const noCr = Buffer.from(good.toString("latin1").replace("\r\n", "\n"), "latin1");
    expect(await decode(headers, [noCr])).toMatchObject({ ok: false, code: "InvalidRequest" });
    const longer = Buffer.from(`2\r\nabc\r\n0\r\n\r\n`);
    expect(await decode(sdkHeaders(Buffer.from("ab")), [longer])).toMatchObject({
      ok: false,
      code: "IncompleteBody",
    });
    const noColon = encode(DATA, { trailers: [["x-amz-checksum-crc32", crc32Base64(DATA)]] });
    const broken = Buffer.concat([noColon.subarray(0, -2), Buffer.from("garbage\r\n\r\n")]);
    expect(await decode(headers, [broken])).toMatchObject({ ok: false, code: "InvalidRequest" });
  });

  it("a size line without end, over 4 KiB: InvalidRequest (memory stays bounded)", async () => {
    const endless = Buffer.from(`10;${"x".repeat(5000)}`);
    expect(await decode(sdkHeaders(DATA), [endless])).toMatchObject({ ok: false, code: "InvalidRequest" });
  });

  it("a trailer announced but not sent, or sent but not announced: InvalidRequest", async () => {
    expect(await decode(sdkHeaders(DATA), [encode(DATA)])).toMatchObject({
      ok: false,
      code: "InvalidRequest",
      message: expect.stringContaining("x-amz-checksum-crc32"),
    });
    const headers = sdkHeaders(DATA);
    delete headers["x-amz-trailer"];
    expect(await decode(headers, [good])).toMatchObject({ ok: false, code: "InvalidRequest" });
  });

  it("a checksum the local S3 does not know, or a decoded length that is no number: refused before reading", () => {
    expect(chunkedPlan(sdkHeaders(DATA, { "x-amz-trailer": "x-amz-checksum-md7" }))).toMatchObject({
      problem: { code: "InvalidRequest", message: expect.stringContaining("x-amz-checksum-md7") },
    });
    expect(chunkedPlan(sdkHeaders(DATA, { "x-amz-decoded-content-length": "-1" }))).toMatchObject({
      problem: { code: "InvalidArgument" },
    });
  });
});

describe("aws-chunked: which requests are", () => {
  it("by content encoding (also after another) or by a streaming payload hash", () => {
    expect(isAwsChunked({ "content-encoding": "aws-chunked" })).toBe(true);
    expect(isAwsChunked({ "content-encoding": "gzip,aws-chunked" })).toBe(true);
    expect(isAwsChunked({ "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER" })).toBe(true);
    expect(isAwsChunked({ "content-encoding": "gzip", "x-amz-content-sha256": "UNSIGNED-PAYLOAD" })).toBe(
      false,
    );
  });
});
