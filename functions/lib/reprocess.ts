/**
 * The reprocess handler's body: one manifest item of a run through the per-file job in reprocess
 * mode, over the same ports as ingest. `functions/reprocess.ts` builds it at cold start (one
 * Distributed Map child per item); the CLI builds it over the local stack's clients.
 */
import type { Logger } from "@aws-lambda-powertools/logger";
import { z } from "zod";
import type { ProcessOptions, ReprocessChange } from "../../shared/pipeline/index.js";
import { reprocessItem } from "../../shared/pipeline/index.js";
import { type PortDependencies, pipelinePorts } from "./pipeline-ports.js";

/** A run id: what `--run-id` takes and the manifest's key holds. */
export const RUN_ID = /^[A-Za-z0-9._-]{1,80}$/;

/** One Distributed Map item: the run and the object version to reprocess. */
const ReprocessEventSchema = z.strictObject({
  run_id: z.string().regex(RUN_ID),
  item: z.strictObject({
    key: z.string().min(1),
    tenant: z.string().min(1),
    session: z.string().min(1),
    version_id: z.string().nullable(),
    etag: z.string().nullable(),
  }),
});

/** What the reprocess handler is made of. */
export interface ReprocessDependencies extends PortDependencies {
  logger: Logger;
  /** Written into every record and document it replaces. */
  toolVersion: string;
  /** The rules it runs (a deployment's preset, a test's rule pack). */
  rules?: Pick<ProcessOptions, "preset" | "redactionKey" | "rulesDigest">;
}

/** Builds the handler over `deps`: one port set per container. */
export function makeReprocessHandler(
  deps: ReprocessDependencies,
): (event: unknown) => Promise<ReprocessChange> {
  const ports = pipelinePorts(deps);
  return async (event) => {
    const { run_id, item } = ReprocessEventSchema.parse(event);
    const change = await reprocessItem(item, ports, {
      toolVersion: deps.toolVersion,
      parallel: { workers: 0 },
      ...deps.rules,
      mode: { kind: "reprocess", runId: run_id },
    });
    deps.logger.info("reprocessed", { run_id, ...change });
    return change;
  };
}
