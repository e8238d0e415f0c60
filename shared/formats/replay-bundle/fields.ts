/** What Layer C keeps of a ReplayBundle, from its schemas: top-level members, entry types, entry members. */
import type { FieldSet } from "../types.js";
import { fieldsOf } from "../validate.js";
import { BUNDLE_EVENT_TYPES, bundleSchema, entrySchema } from "./schema.js";

/** An entry's members, its `data` left out: Layer C treats `data` as content of its own. */
const ENTRY = fieldsOf(entrySchema);
const withoutData = (names: ReadonlySet<string>): ReadonlySet<string> =>
  new Set([...names].filter((name) => name !== "data"));

/** The bundle's members for Layer C: its top level, the entry types it knows, and an entry's members. */
export const BUNDLE_FIELDS: { top: FieldSet; entryTypes: ReadonlySet<string>; entry: FieldSet } = {
  top: fieldsOf(bundleSchema),
  entryTypes: new Set(BUNDLE_EVENT_TYPES),
  entry: { known: withoutData(ENTRY.known), required: withoutData(ENTRY.required) },
};
