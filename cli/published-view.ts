/**
 * `view <tenant>/<session>[/<file>]`: the viewer page of a file's published Layer C copy, read from
 * the pipeline `connect` names, with the verdicts the pipeline recorded (the copy's own record of
 * its original, and the session's receipt check of that file).
 */
import { GetObjectCommand } from "@aws-sdk/client-s3";
import type { ReceiptCheckRecord } from "#shared/pipeline/index.js";
import { scrubReport } from "#shared/redact/index.js";
import { attachReceipt, readSessionView, type SessionView } from "#shared/view/index.js";
import { UsageError } from "./errors.js";
import { checkName, connect } from "./remote.js";
import type { parallelOptions } from "./worker-script.js";

/** The view of the published copy named by `arg`; a session with several copies needs the file. */
export async function publishedView(
  arg: string,
  target: Parameters<typeof connect>[1],
  options: { hmacKey?: Uint8Array; parallel?: ReturnType<typeof parallelOptions> },
): Promise<SessionView> {
  const [tenantPart, sessionPart, ...rest] = arg.split("/");
  const tenant = checkName("view", "tenant", tenantPart);
  const session = checkName("view", "session", sessionPart);
  const t = await connect("view", target);
  try {
    const files = await t.index.listFiles(tenant, session);
    const published = files.filter((f) => f.layer_c_key !== null && (rest.length === 0 || f.ref.key === arg));
    const record = published[0];
    if (record === undefined || record.layer_c_key === null)
      throw new UsageError(
        `view: ${arg} has no published copy (see 'replay-pipeline show ${tenant}/${session}')`,
      );
    if (published.length > 1)
      throw new UsageError(
        `view: ${tenant}/${session} has ${published.length} published copies; name one: ${published.map((f) => f.ref.key).join(", ")}`,
      );
    const out = await t.s3.send(new GetObjectCommand({ Bucket: t.publishedBucket, Key: record.layer_c_key }));
    const body = out.Body as AsyncIterable<Uint8Array> | undefined;
    if (body === undefined) throw new Error(`view: GetObject ${record.layer_c_key} returned no body`);
    return await copyView(
      record.layer_c_key,
      record.ref.key,
      body,
      await t.index.listChecks(tenant, session),
      options,
    );
  } finally {
    t.close();
  }
}

/**
 * The scrubbed view of the published copy `copyKey` (its bytes `body`) of the file `fileKey`, with
 * the latest of the session's `checks` of that file as its receipt check. Shared with the local web UI.
 */
export async function copyView(
  copyKey: string,
  fileKey: string,
  body: AsyncIterable<Uint8Array>,
  checks: ReceiptCheckRecord[],
  options: { hmacKey?: Uint8Array; parallel?: ReturnType<typeof parallelOptions> },
): Promise<SessionView> {
  const { view } = await readSessionView(body, { file: copyKey, ...options });
  // The latest receipt check of this file, as the pipeline recorded it (its failed rows).
  const check = checks
    .filter((c) => c.replay.key === fileKey)
    .sort((a, b) => a.processed_at.localeCompare(b.processed_at))
    .at(-1);
  if (check !== undefined)
    attachReceipt(view, {
      file: check.receipt.key,
      verdict: check.verdict,
      checks: check.failed,
      checks_total: check.checks_total,
    });
  return scrubReport(view);
}
