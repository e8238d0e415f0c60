/** Braintrust span traces: the span schema, the reader, and what Layer C keeps. */
export { SPAN_FIELD_SET_OF_SCHEMA } from "./fields.js";
export { braintrustFormat, isBraintrustSpan } from "./reader.js";
