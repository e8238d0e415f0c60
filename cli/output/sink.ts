/**
 * Verdicts of one or many files in one format, as the many-inputs commands print them: text and
 * JSON Lines as each file is done, GitHub annotations for every file as it is done and one job
 * summary at the end, one JUnit document (a testsuite per file) at the end.
 */
import type { ReplayPipelineError } from "#shared/errors.js";
import { writeOut } from "../io.js";
import { errorDiagnostic, type Format, jsonLine, renderError } from "./format.js";
import { renderAnnotations, writeStepSummary } from "./github.js";
import { renderJunit } from "./junit.js";
import type { VerdictView } from "./view.js";

/** One file's verdict in every shape a format may want. */
export interface VerdictOutput {
  view: VerdictView;
  json: object;
  text: () => string;
}

/** Writes the verdicts of a run in `format`; `finish()` ends the run's document. */
export class VerdictSink {
  private readonly views: VerdictView[] = [];

  constructor(
    readonly format: Format,
    private readonly title: string,
  ) {}

  /** One file's verdict. */
  async add(output: VerdictOutput): Promise<void> {
    if (this.format === "json") await writeOut(jsonLine(output.json));
    else if (this.format === "text") await writeOut(output.text());
    else {
      this.views.push(output.view);
      if (this.format === "github") await writeOut(renderAnnotations([output.view]));
    }
  }

  /**
   * A file that could not be read or parsed, in a run over many: its JSON error line, its
   * annotation, or a JUnit testsuite with the error as a failure (text: the stderr line only).
   */
  async fileError(error: ReplayPipelineError, command: string): Promise<void> {
    if (this.format === "json" || this.format === "github")
      await writeOut(renderError(error, this.format).stdout);
    if (this.format === "junit" || this.format === "github") {
      const d = errorDiagnostic(error);
      this.views.push({
        file: d.file,
        command,
        verdict: "invalid",
        rows: [],
        totals: { passed: 0, failed: 0, unverifiable: 0 },
        diagnostics: [d],
        errorsTotal: 1,
        error: d,
      });
    }
  }

  /** Ends the run: the JUnit document, or the GitHub job summary. */
  async finish(): Promise<void> {
    if (this.format === "junit") await writeOut(renderJunit(this.views, this.title));
    else if (this.format === "github") await writeStepSummary(this.views, this.title);
  }
}

/**
 * Writes the verdicts of one run in `format`: `text()` for people, `json` values one per line,
 * workflow commands plus the job summary for GitHub, one JUnit document.
 */
export async function emitVerdicts(
  format: Format,
  output: { title: string; views: VerdictView[]; json: object[]; text: () => string },
): Promise<void> {
  const sink = new VerdictSink(format, output.title);
  if (format === "text") await writeOut(output.text());
  else if (format === "json") for (const value of output.json) await writeOut(jsonLine(value));
  else for (const view of output.views) await sink.add({ view, json: {}, text: () => "" });
  await sink.finish();
}
