/**
 * The reprocess handler's body: one manifest item of a run through the per-file job in reprocess
 * mode, over the same ports as ingest. `functions/reprocess.ts` builds it at cold start (one
 * Distributed Map child per item); the CLI builds it over the local stack's clients.
 */
import type { Logger } from "@aws-lambda-powertools/logger";
import { z } from "zod";
import type { ReprocessChange, RulePack } from "../../shared/pipeline/index.js";
import { reprocessItem } from "../../shared/pipeline/index.js";
import { batchPorts, type PortDependencies, pipelinePorts } from "./pipeline-ports.js";

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
  rules?: RulePack;
}

/** What one event of a batch came to: its change, or the fault that stopped it. */
export type ReprocessOutcome = { ok: true; change: ReprocessChange } | { ok: false; error: unknown };

/**
 * Builds the batch handler over `deps` (one port set per container): each event (one manifest
 * item) through the job in turn, then each touched tenant's catalogue rebuilt once, before the
 * batch's outcomes are returned. The local stack's queue hands it batches; a fault of one event
 * is its outcome, not the batch's.
 */
export function makeReprocessBatchHandler(
  deps: ReprocessDependencies,
): (events: readonly unknown[]) => Promise<ReprocessOutcome[]> {
  const ports = pipelinePorts(deps);
  return async (events) => {
    const { ports: jobPorts, batch } = batchPorts(ports);
    const outcomes: ReprocessOutcome[] = [];
    for (const event of events) {
      try {
        const { run_id, item } = ReprocessEventSchema.parse(event);
        const change = await reprocessItem(item, jobPorts, {
          toolVersion: deps.toolVersion,
          parallel: { workers: 0 },
          ...deps.rules,
          mode: { kind: "reprocess", runId: run_id },
        });
        // A try before this one may have stopped between its publish and its batch's rebuild.
        if (change.outcome === "duplicate") batch.touch(item.tenant);
        deps.logger.info("reprocessed", { run_id, ...change });
        outcomes.push({ ok: true, change });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    await batch.settle();
    return outcomes;
  };
}

/** Builds the handler of one event (a Distributed Map child's item) over `deps`; a fault throws. */
export function makeReprocessHandler(
  deps: ReprocessDependencies,
): (event: unknown) => Promise<ReprocessChange> {
  const handle = makeReprocessBatchHandler(deps);
  return async (event) => {
    const [outcome] = await handle([event]);
    if (outcome === undefined || !outcome.ok) throw outcome?.error;
    return outcome.change;
  };
}
