import { join } from "node:path";
import { PROJECT_ROOT } from "./corpus.js";

/** The line worker the build bundles (test/global-setup.ts builds dist/ before any test). */
export const LINE_WORKER = join(PROJECT_ROOT, "dist", "line-worker.js");
