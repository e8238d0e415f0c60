/**
 * A receipt check on the timeline: each row that names one of the replay's tool calls is attached
 * to that call's step, so a failed comparison shows where it happened, not only in the header.
 * The rows name calls as `shared/receipt/match.ts` writes them: `tool call <r> (receipt #i, replay
 * <name>)` for a pair, `tool call <name> (replay #k)` for a call the receipt does not list, where
 * `<name>` is the call's id, else its step id, else `#k (line L)`.
 */
import type { CheckRow } from "../formats/index.js";
import type { SessionView, ViewStep } from "./types.js";

/** The receipt check shown with a view. */
type ReceiptCheck = NonNullable<SessionView["receipt"]>;

/** What `compareValues` appends to a subject whose value could not be compared. */
const NOTE = / \((?:the replay does not carry it|masked in the replay)\)$/;
const MISSING_IN_RECEIPT = /^tool call .* \(replay #(\d+)\)$/s;
const PAIRED = /^tool call .* \(receipt #\d+, replay (.*)\)$/s;
/** A call with neither id nor step id, named by its position. */
const BY_POSITION = /^#(\d+)(?: \(line \d+\))?$/;

/**
 * Sets `view.receipt` to `receipt` and attaches each of its rows that names a tool call to that
 * call's step (`step.receipt`); the header keeps every row. A name several calls share is the
 * first of them, as the receipt's matching pairs it.
 */
export function attachReceipt(view: SessionView, receipt: ReceiptCheck): void {
  view.receipt = receipt;
  const byPosition = new Map<number, ViewStep>();
  const byName = new Map<string, ViewStep>();
  for (const step of view.steps) {
    if (step.call === null) continue;
    byPosition.set(step.call, step);
    if (step.id !== null && !byName.has(step.id)) byName.set(step.id, step);
  }
  for (const row of receipt.checks) {
    const step = stepOf(row, byPosition, byName);
    step?.receipt.push(row);
  }
}

function stepOf(
  row: CheckRow,
  byPosition: ReadonlyMap<number, ViewStep>,
  byName: ReadonlyMap<string, ViewStep>,
): ViewStep | undefined {
  const subject = row.subject.replace(NOTE, "");
  const missing = MISSING_IN_RECEIPT.exec(subject);
  if (missing !== null) return byPosition.get(Number(missing[1]));
  const name = PAIRED.exec(subject)?.[1];
  if (name === undefined) return undefined;
  const position = BY_POSITION.exec(name);
  return position === null ? byName.get(name) : byPosition.get(Number(position[1]));
}
