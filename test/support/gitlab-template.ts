/**
 * The GitLab CI template (ci/gitlab/replay-pipeline.gitlab-ci.yml) as a job folder runs it: its
 * hidden job, its variables as GitLab expands them, and a folder of stand-ins for the commands the
 * job image has (`aws`, `npm`, `npx` running this build).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { PROJECT_ROOT } from "./corpus.js";

/** The template's hidden job. */
interface GitlabJob {
  image: string;
  id_tokens: Record<string, { aud: string }>;
  variables: Record<string, string>;
  before_script: string[];
  script: string[];
  artifacts: { when: string; paths: string[]; reports: { junit: string } };
}

/** The template's file. */
export const TEMPLATE = join(PROJECT_ROOT, "ci", "gitlab", "replay-pipeline.gitlab-ci.yml");

/** The hidden job `.replay-pipeline-push`. */
export function templateJob(): GitlabJob {
  return (parse(readFileSync(TEMPLATE, "utf8")) as Record<string, GitlabJob>)[
    ".replay-pipeline-push"
  ] as GitlabJob;
}

/** The fake credentials the stand-in `aws` prints. */
export const FAKE_CREDENTIALS = ["ASIAFAKEKEYID", "fake-secret", "fake-session-token"] as const;

/**
 * A folder of stand-ins: `aws` answers `sts assume-role-with-web-identity` with the fake
 * credentials when it is given the ID token (and fails otherwise), `npm` does nothing, and `npx
 * replay-pipeline` runs this build, noting its AWS_ variables in `npx.env`. Returns the folder to
 * put first on PATH.
 */
export function standIns(idToken: string): string {
  const bin = mkdtempSync(join(tmpdir(), "gitlab-bin-"));
  mkdirSync(bin, { recursive: true });
  const write = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  write(
    "aws",
    `[ "$1 $2" = "sts assume-role-with-web-identity" ] || exit 252
case " $* " in *" --web-identity-token ${idToken} "*) ;; *) echo "no ID token" >&2; exit 254 ;; esac
printf '%s\\t%s\\t%s\\n' ${FAKE_CREDENTIALS.join(" ")}`,
  );
  write("npm", "exit 0");
  // `npx` notes the AWS credentials it was run with, to show the job exported them.
  write(
    "npx",
    `env | grep '^AWS_' > "${join(bin, "npx.env")}"\nshift\nexec "${process.execPath}" "${join(PROJECT_ROOT, "bin", "replay-pipeline.js")}" "$@"`,
  );
  return bin;
}

/** The job's variables as GitLab hands them to the shell: its own `$CI_…` references expanded. */
export function jobVariables(job: GitlabJob, ci: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(job.variables).map(([k, v]) => [
      k,
      String(v).replaceAll(/\$([A-Z_]+)/g, (whole, name: string) => ci[name] ?? whole),
    ]),
  );
}
