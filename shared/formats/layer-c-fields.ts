/**
 * What Layer C keeps of each JSON Lines event, as plain data: the members each REPLAY dialect's
 * event types and a Braintrust span know, and which are required. The lists are the format schemas'
 * (`replay-jsonl/fields.ts`, `braintrust/fields.ts`), written to `layer-c-fields.json` by
 * `npm run schemas` (test/unit/formats/layer-c-fields.test.ts fails when they differ), so the line
 * worker redacts without loading zod (about 14 MB in every thread).
 */
import data from "./layer-c-fields.json" with { type: "json" };
import type { ReplayEventFields } from "./replay-jsonl/fields.js";
import type { ReplayFormatId } from "./replay-jsonl/schema.js";
import type { FieldSet } from "./types.js";

/** A field set as JSON: member names, and which of them are required. */
export interface FieldLists {
  known: string[];
  required: string[];
}

/** The JSON `layer-c-fields.json` holds. */
export interface LayerCFieldsData {
  replay: Record<ReplayFormatId, { typeKey: string; byType: Record<string, FieldLists> }>;
  span: FieldLists;
}

const fieldSet = (lists: FieldLists): FieldSet => ({
  known: new Set(lists.known),
  required: new Set(lists.required),
});

const lists = data as LayerCFieldsData;

/** The event fields of every REPLAY dialect. */
export const REPLAY_EVENT_FIELDS = Object.fromEntries(
  Object.entries(lists.replay).map(([format, { typeKey, byType }]) => [
    format,
    { typeKey, byType: new Map(Object.entries(byType).map(([type, f]) => [type, fieldSet(f)])) },
  ]),
) as unknown as Record<ReplayFormatId, ReplayEventFields>;

/** Span members the reader knows (Braintrust's own, plus the hashes Layer C adds); `span_id` required. */
export const SPAN_FIELD_SET: FieldSet = fieldSet(lists.span);
