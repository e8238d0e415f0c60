/**
 * The `receipt-settle` row of `npm run bench`: a receipt arriving in a session of 1,000 replays.
 * Its job checks every replay of the session in its own invocation (each replay read again, its
 * tool calls fed to the check), so the time to settle is that job's time at one vCPU: measured here
 * on one thread over the memory ports (no network), set against the ingest function's timeout.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { memoryPorts, processObject, settlementOf } from "#shared/pipeline/index.js";
import { INGEST_TIMEOUT_SECONDS } from "../infra/sizing.js";

/** Replays in the session. */
const REPLAYS = 1000;

/** The section: time to settle, per replay, bytes read again, and the share of the timeout. */
export async function receiptSettleReport(root: string): Promise<{ text: string }> {
  const replay = readFileSync(join(root, "examples", "fix-auth.REPLAY.jsonl"));
  const receipt = readFileSync(join(root, "examples", "fix-auth.RECEIPT.json"));
  const ports = memoryPorts();
  const options = { toolVersion: "bench" };
  for (let n = 0; n < REPLAYS; n++)
    await processObject(ports.objects.put(`bench/s/r-${n}.REPLAY.jsonl`, replay), ports, options);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await processObject(ports.objects.put("bench/s/RECEIPT.json", receipt), ports, options);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const settlement = settlementOf(await ports.index.listFiles("bench", "s"), [
    ...ports.index.checks.values(),
  ]);
  if (!settlement.settled || result.checks.length !== REPLAYS)
    throw new Error(
      `receipt-settle: ${settlement.recorded} of ${settlement.expected} checks: wrong thing measured`,
    );
  const perReplay = (seconds * 1000) / REPLAYS;
  return {
    text: [
      "## A receipt arriving in a session of 1,000 replays",
      "",
      `The receipt's job checks all ${REPLAYS.toLocaleString("en-US")} replays (\`fix-auth.REPLAY.jsonl\`, ${replay.length.toLocaleString("en-US")} bytes each) in its own invocation, one thread, memory ports: settled in **${seconds.toFixed(2)} s** (${perReplay.toFixed(2)} ms a replay; CPU ${((used.user + used.system) / 1e6).toFixed(2)} s), ${(100 * (seconds / INGEST_TIMEOUT_SECONDS)).toFixed(1)}% of the ingest function's ${INGEST_TIMEOUT_SECONDS} s timeout. Each replay is read again for its check, so a session of N replays of B bytes in all takes about N × ${perReplay.toFixed(1)} ms + B at the one-thread \`inspect\` rate; the checks are not fanned out through the queue, so a session whose replays take longer than the timeout to read again leaves the receipt's checks to its redelivery (each check is recorded once, so a retry goes on where the last stopped).`,
    ].join("\n"),
  };
}
