/**
 * What the viewer needs of a file beyond `inspect`'s session, taken from the same read of it: the
 * whole document of a document format (an `.rpk`'s steps), and the lines that may carry a Layer C
 * redaction record (a ReplayHeader, a root span).
 */
import { type ByteLine, decodeUtf8, isJsonObject, type JsonValue, readJson } from "../canonical/index.js";
import type { LineTap } from "../formats/index.js";

/** Lines beyond the first kept as candidates for a redaction record (span traces). */
const MAX_RECORD_LINES = 16;
const REDACTION = Buffer.from('"redaction"');

/**
 * A `LineTap` given without a fused task (so `inspect` reads as it always does) that keeps: the
 * lines of a pretty-printed document, the first line (a one-line document or a header), and a few
 * lines that mention `"redaction"`. Document formats are bounded by `maxDocumentBytes`, so so is
 * what this keeps.
 */
export class ViewCapture implements LineTap {
  private readonly first: Buffer[] = [];
  private readonly marked: Buffer[] = [];
  private documentMode = false;
  private kept = 0;

  constructor(private readonly maxBytes: number) {}

  line(item: ByteLine): undefined {
    // The line's bytes may be a view into the reader's buffer: copied only when kept.
    const bytes = item.bytes;
    if (item.line === 1) {
      const text = bytes.toString("utf8", 0, Math.min(bytes.length, 16)).trim();
      this.documentMode = text === "{" || text === "[";
      this.keep(bytes);
    } else if (this.documentMode) {
      this.keep(bytes);
    } else if (this.marked.length < MAX_RECORD_LINES && bytes.indexOf(REDACTION) >= 0) {
      this.marked.push(Buffer.from(bytes));
    }
    return undefined;
  }

  state(): void {
    // no line task, no state
  }

  end(): void {
    // nothing to release: what was kept is read by `document` and `records`
  }

  /** The whole document (for a document format), or null when it cannot be read as JSON. */
  document(): JsonValue | null {
    if (this.kept > this.maxBytes) return null;
    return parsed(Buffer.concat(this.first.flatMap((b) => [b, Buffer.from("\n")])));
  }

  /** The parsed lines that may hold a redaction record: the first line, then the marked ones. */
  records(): JsonValue[] {
    const lines = this.documentMode ? [] : [this.first[0], ...this.marked];
    return lines.flatMap((b) => {
      const value = b === undefined ? null : parsed(b);
      return value !== null && isJsonObject(value) ? [value] : [];
    });
  }

  private keep(bytes: Buffer): void {
    this.kept += bytes.length + 1;
    if (this.kept <= this.maxBytes) this.first.push(Buffer.from(bytes));
  }
}

function parsed(bytes: Buffer): JsonValue | null {
  try {
    return readJson(decodeUtf8(bytes), { rejectLoneSurrogates: false });
  } catch {
    return null;
  }
}
