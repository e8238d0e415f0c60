/** What Layer C keeps of a Braintrust span: the members this reader knows, from its schema. */
import type { FieldSet } from "../types.js";
import { fieldsOf } from "../validate.js";
import { zSpan } from "./schema.js";

/** Span members the reader knows, from its schema (Layer C reads `../layer-c-fields.ts`). */
export const SPAN_FIELD_SET_OF_SCHEMA: FieldSet = fieldsOf(zSpan);
