/** REPLAY.jsonl in its three dialects (v1, dsrs, ADR-0003): schemas, the reader, and what Layer C keeps. */
export { REPLAY_EVENT_FIELDS_OF_SCHEMAS, type ReplayEventFields } from "./fields.js";
export { replayAdr0003Format, replayDsrsFormat, replayV1Format } from "./reader.js";
export { detectReplayDialect, REPLAY_DIALECTS } from "./schema.js";
