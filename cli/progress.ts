/**
 * The progress line on long reads: bytes, MB/s and time left on standard error, for files over
 * 64 MiB, only when standard error is a terminal, never with `--quiet` or in CI (`CI` set).
 */
import { statSync } from "node:fs";

/** Files at least this large get a progress line. */
const PROGRESS_MIN_BYTES = 64 * 1024 * 1024;
/** Least time between two updates of the line, ms. */
const EVERY_MS = 250;

let enabled = false;

/** Decides once per command whether progress lines are shown (`quiet`: the `--quiet` flag). */
export function configureProgress(quiet: boolean): void {
  const ci = process.env.CI;
  enabled = !quiet && process.stderr.isTTY === true && (ci === undefined || ci === "");
}

/** `size` bytes as MiB with one decimal. */
const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;

/** Seconds as m:ss. */
function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** The progress line of `done` of `size` bytes after `ms`. */
function progressLine(path: string, done: number, size: number, ms: number): string {
  const rate = ms > 0 ? done / 1e6 / (ms / 1000) : 0;
  const left = rate > 0 ? (size - done) / 1e6 / rate : Number.NaN;
  const pct = size > 0 ? Math.min(100, Math.floor((done / size) * 100)) : 100;
  return `${path}: ${mib(done)} of ${mib(size)} (${pct}%), ${rate.toFixed(1)} MB/s, ETA ${Number.isNaN(left) ? "?" : clock(left)}`;
}

/**
 * `chunks` of the file at `path` as they are read; when progress is on and the file is large,
 * the progress line is drawn as they pass and erased at the end.
 */
export function withProgress(path: string, chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  if (!enabled) return chunks;
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    // The read itself reports a missing file.
    return chunks;
  }
  return size < PROGRESS_MIN_BYTES ? chunks : drawn(path, size, chunks);
}

async function* drawn(
  path: string,
  size: number,
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  const started = Date.now();
  let done = 0;
  let last = 0;
  try {
    for await (const chunk of chunks) {
      done += chunk.length;
      const now = Date.now();
      if (last === 0 || now - last >= EVERY_MS) {
        last = now;
        process.stderr.write(`\r${progressLine(path, done, size, now - started)}\x1b[K`);
      }
      yield chunk;
    }
  } finally {
    process.stderr.write("\r\x1b[K");
  }
}

/** A progress line over a count of items (`reprocess`): done of total, items/s, time left, failures. */
export interface CountProgress {
  /** Redraws the line with `done` items finished, `failed` of them failed (at most every 250 ms). */
  update(done: number, failed?: number): void;
  /** Erases the line. */
  end(): void;
}

/** The progress line of `done` of `total` items (`failed` of them failed) after `ms`. */
function countLine(label: string, done: number, total: number, ms: number, failed = 0): string {
  const rate = ms > 0 ? done / (ms / 1000) : 0;
  const pct = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
  const left = rate > 0 ? clock((total - done) / rate) : "?";
  return `${label}: ${done} of ${total} (${pct}%), ${rate.toFixed(1)}/s, ETA ${left}${failed > 0 ? `, ${failed} failed` : ""}`;
}

/** A count progress line on standard error, drawn only where `configureProgress` turned progress on. */
export function countProgress(label: string, total: number): CountProgress {
  const started = Date.now();
  let last = 0;
  return {
    update(done, failed = 0) {
      const now = Date.now();
      if (!enabled || (last !== 0 && now - last < EVERY_MS)) return;
      last = now;
      process.stderr.write(`\r${countLine(label, done, total, now - started, failed)}\x1b[K`);
    },
    end() {
      if (enabled && last !== 0) process.stderr.write("\r\x1b[K");
    },
  };
}
