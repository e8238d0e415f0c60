/** Worker threads for large JSON Lines files: the pool (`mapLines`) and its worker side. Knows no domain module. */
export { WorkerPoolError } from "../errors.js";
export { defaultWorkers, mapLines, type ParallelOptions, poolStats } from "./line-pool.js";
export type { LineTask, LineTaskModule } from "./task.js";
export { serveLineTasks } from "./worker.js";
