/**
 * The session summary as a file record holds it: within a byte budget, because the record is one
 * DynamoDB item (400 KB at most) and a summary's lists grow with the file (a verification entry
 * per command run, a turn per span chain, a count per event type). The verdict document keeps the
 * whole summary.
 */
import type { SessionSummary } from "../formats/index.js";
import { cutText } from "./record-bounds.js";

/** Most bytes of JSON a record's summary takes. */
export const RECORD_SUMMARY_BYTES = 64 * 1024;
/** Characters kept of one verification command, and of any other text, in a cut summary. */
const COMMAND_CHARS = 512;
const TEXT_CHARS = 256;
/** Event types counted by name in a cut summary; the rest are counted together. */
const STEP_TYPES = 64;
/** The name the event types past `STEP_TYPES` are counted under. */
export const OTHER_STEP_TYPES = "(other types)";

/** A summary for a record, and whether it had to be cut to fit `budget` bytes of JSON. */
export interface RecordSummary {
  summary: SessionSummary;
  truncated: boolean;
}

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

const cutOrNull = (text: string | null): string | null => (text === null ? null : cutText(text, TEXT_CHARS));

/**
 * `summary` when its JSON fits in `budget` bytes; else a copy that fits: texts cut to 256
 * characters (verification commands to 512), the first 64 event types by name and the rest counted
 * together (the counts still add up), and as many verification entries and turns, in order, as the
 * budget leaves room for. Those texts alone can pass a small budget: at most about 110 KB of JSON
 * (every character escaped), still well within an item.
 */
export function recordSummary(summary: SessionSummary, budget = RECORD_SUMMARY_BYTES): RecordSummary {
  if (bytesOf(summary) <= budget) return { summary, truncated: false };
  const steps: Record<string, number> = {};
  Object.entries(summary.counts.steps_by_type).forEach(([type, n], k) => {
    const name = k < STEP_TYPES ? cutText(type, TEXT_CHARS) : OTHER_STEP_TYPES;
    steps[name] = (steps[name] ?? 0) + n;
  });
  const cut: SessionSummary = {
    ...summary,
    session_id: cutOrNull(summary.session_id),
    producer: cutOrNull(summary.producer),
    policy_bundle_id: cutOrNull(summary.policy_bundle_id),
    started_at: cutOrNull(summary.started_at),
    ended_at: cutOrNull(summary.ended_at),
    status: cutOrNull(summary.status),
    counts: { ...summary.counts, steps_by_type: steps },
    verification: [],
    ...(summary.turns === undefined ? {} : { turns: [] }),
  };
  // Each entry added costs its JSON and a comma; half the room left goes to each list.
  let room = budget - bytesOf(cut);
  const fill = <T>(from: readonly T[], into: T[], share: number): void => {
    let spent = 0;
    for (const entry of from) {
      const cost = bytesOf(entry) + 1;
      if (spent + cost > share) break;
      into.push(entry);
      spent += cost;
    }
    room -= spent;
  };
  const commands = summary.verification.map((v) => ({ ...v, command: cutText(v.command, COMMAND_CHARS) }));
  fill(commands, cut.verification, cut.turns === undefined ? room : Math.floor(room / 2));
  const turns = (summary.turns ?? []).map((t) => ({
    ...t,
    user_input: t.user_input === null ? null : cutText(t.user_input, COMMAND_CHARS),
    assistant_output: t.assistant_output === null ? null : cutText(t.assistant_output, COMMAND_CHARS),
  }));
  if (cut.turns !== undefined) fill(turns, cut.turns, room);
  return { summary: cut, truncated: true };
}
