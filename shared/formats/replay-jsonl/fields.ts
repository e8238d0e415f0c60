/** What Layer C keeps of a REPLAY.jsonl event: each dialect's discriminator and each event type's members. */
import type { FieldSet } from "../types.js";
import { REPLAY_DIALECTS, type ReplayFormatId } from "./schema.js";

/** A dialect's discriminator member and the members of each event type it knows, from its schemas. */
export interface ReplayEventFields {
  typeKey: string;
  byType: ReadonlyMap<string, FieldSet>;
}

/** The event fields of every REPLAY dialect, from the schemas (Layer C reads `../layer-c-fields.ts`). */
export const REPLAY_EVENT_FIELDS_OF_SCHEMAS: Record<ReplayFormatId, ReplayEventFields> = {
  "replay-v1": eventFields("replay-v1"),
  "replay-dsrs": eventFields("replay-dsrs"),
  "replay-adr0003": eventFields("replay-adr0003"),
};

function eventFields(format: ReplayFormatId): ReplayEventFields {
  const dialect = REPLAY_DIALECTS[format];
  const byType = new Map<string, FieldSet>();
  for (const [type, rule] of dialect.rules) byType.set(type, { known: rule.fields, required: rule.required });
  return { typeKey: dialect.typeKey, byType };
}
