/** What Layer C keeps of a Braintrust span: the members this reader knows, from its schema. */
import type { FieldSet } from "../types.js";
import { fieldsOf } from "../validate.js";
import { zSpan } from "./schema.js";

/** Span members the reader knows (Braintrust's own, plus the hashes Layer C adds); `span_id` required. */
export const SPAN_FIELD_SET: FieldSet = fieldsOf(zSpan);
