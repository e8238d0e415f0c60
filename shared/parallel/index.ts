/**
 * Worker threads for large JSON Lines files: the pool (`mapLines`), its worker side, and the
 * `split` task with the wire form its lines cross threads in. The pool knows no task.
 */

export { defaultWorkers, type MappedGroup, mapLines, type ParallelOptions } from "./line-pool.js";
export { type SplitTexts, SplitWire, splitsFromWire, splitTask } from "./split-task.js";
export type { LineTask, LineTaskModule } from "./task.js";
export { serveLineTasks } from "./worker.js";
