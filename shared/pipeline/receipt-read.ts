/**
 * Receipts as the per-file job reads them: whole (gunzipped when compressed, bounded), and each
 * one's check begun before its replay is read, so one read of the replay feeds every check.
 */
import { createGunzip } from "node:zlib";
import type { JsonValue } from "../canonical/index.js";
import type {
  Findings,
  FormatOptions,
  ToolCallRecord,
  ToolCallSink,
  ToolResultFields,
} from "../formats/index.js";
import { parseReceiptJson, type ReceiptCheck } from "../receipt/index.js";
import type { ObjectRef } from "./ports.js";

/** Largest receipt read, bytes. */
const MAX_RECEIPT_BYTES = 64 * 1024 * 1024;

/** A receipt read and its check of one replay begun, before the replay is read. */
export interface PendingCheck {
  receipt: ObjectRef;
  findings: Findings;
  check: ReceiptCheck;
}

/** Reader options feeding every check's tool calls from one read of the replay. */
export function readOptionsOf(
  pending: readonly PendingCheck[],
): Pick<FormatOptions, "keepToolCalls" | "toolCalls"> {
  const sinks = pending.flatMap((p) =>
    p.check.readOptions.toolCalls === undefined ? [] : [p.check.readOptions.toolCalls],
  );
  if (sinks.length === 0) return { keepToolCalls: false };
  if (sinks.length === 1) return { keepToolCalls: true, toolCalls: sinks[0] as ToolCallSink };
  return {
    keepToolCalls: true,
    toolCalls: {
      call: (record: ToolCallRecord) => {
        for (const sink of sinks) sink.call(record);
      },
      result: (line: number, fields: ToolResultFields) => {
        for (const sink of sinks) sink.result(line, fields);
      },
    },
  };
}

/**
 * A whole JSON document (a receipt), gunzipped when compressed, at most `MAX_RECEIPT_BYTES`;
 * a problem is an error finding and null.
 */
export async function readWhole(
  body: AsyncIterable<Uint8Array>,
  findings: Findings,
  file: string,
): Promise<JsonValue | null> {
  const parts: Buffer[] = [];
  let size = 0;
  const fail = (code: string, message: string): null => {
    findings.error({ line: null, column: null, path: "$", code, message: `${file}: ${message}` });
    return null;
  };
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RECEIPT_BYTES)
      return fail("receipt.too_large", `larger than ${MAX_RECEIPT_BYTES} bytes; expected a receipt`);
    parts.push(Buffer.from(chunk));
  }
  let bytes: Buffer = Buffer.concat(parts);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = await gunzip(bytes);
    } catch (error) {
      return fail(
        "gzip.corrupt",
        `gzip data is corrupt (${(error as Error).message}); expected a complete gzip stream`,
      );
    }
  }
  return parseReceiptJson(bytes, file, findings);
}

/** Gunzips at most `MAX_RECEIPT_BYTES`. */
async function gunzip(bytes: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  let size = 0;
  const stream = createGunzip();
  stream.end(bytes);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_RECEIPT_BYTES) throw new Error(`expands past ${MAX_RECEIPT_BYTES} bytes`);
    out.push(chunk);
  }
  return Buffer.concat(out);
}
