/**
 * Commands that print a stored secret, and the line their output stands on: `vault kv get
 * -field=password app⏎S`, `op read op://vault/db/password⏎S`, `echo $DB_PASSWORD⏎S`,
 * `kubectl get secret db -o jsonpath='{.data.password}' | base64 -d⏎S`, `terraform output -raw
 * db_password⏎S`, `echo -n deploy:p | base64⏎S`. A transcript of an
 * agent's shell holds the command and its output one after the other, and nothing names the
 * output but the command before it.
 */
import { isPlaceholder } from "../rule-helpers.js";
import type { Detection } from "../rule-types.js";
import { type Line, linesOf } from "../text-lines.js";
import { credentialName } from "./credential-names.js";
import { ECHOED } from "./tool-passwords.js";

/** `kubectl get secret`, its flags before the verb too (`kubectl -n prod get secret`); OpenShift's `oc`, the alias `k`. */
const KUBECTL_GET_SECRET = String.raw`\b(?:kubectl|oc|k)(?:\s+-{1,2}[\w-]+(?:[= ][^\s|]+)?)*\s+get\s+secrets?\b`;

/** A Secret's key that holds no credential (`{.data.username}`, `{.data.ca\.crt}`). */
const NOT_A_CREDENTIAL_KEY = String.raw`(?!\.(?:username|user|host|hostname|port|database|dbname|db|url|uri|endpoint|namespace|ca\\?\.crt|tls\\?\.crt)\b)`;

/**
 * The readers, each up to the end of its command's line; group 1, where there is one, is the
 * name the command reads, which must name a credential (`echo $PATH` prints no secret).
 */
const READERS: readonly RegExp[] = [
  new RegExp(String.raw`${ECHOED}["']?\$\{?([A-Za-z_]\w*)\}?["']?[ \t]*$`),
  /\bprintenv\s+([A-Za-z_]\w*)[ \t]*$/,
  /\bvault\s+(?:kv\s+get|kv\s+read|read)\b.*?\s-field[= ]["']?([\w.-]+)/,
  /\bop\s+(?:read\s+["']?op:\/\/\S+|item\s+get\b.*?\s--fields?[= ](?:label=)?["']?([\w.-]+))/,
  new RegExp(
    String.raw`${KUBECTL_GET_SECRET}(?:(?!\.data\.).)*?(?:\.data\b${NOT_A_CREDENTIAL_KEY}.*?)?\|\s*base64\s+(?:-d|--decode|-D)\b`,
  ),
  // A Secret's data read alone prints it in base64 (`-o jsonpath='{.data.password}'`).
  new RegExp(
    String.raw`${KUBECTL_GET_SECRET}.*?(?:jsonpath|go-template)=?["']?\{\{?\s*\.data\b${NOT_A_CREDENTIAL_KEY}`,
  ),
  /\b(?:terraform|tofu)\s+(?:-chdir=\S+\s+)?output\s+(?:-raw\s+|-json\s+)?([\w-]+)[ \t]*$/,
  /\bheroku\s+config:get\s+([A-Za-z_]\w*)/,
  /\bdoppler\s+secrets\s+get\s+([A-Za-z_]\w*)\b.*?--plain\b/,
  // PowerShell: a credential's password in the clear, a Key Vault secret as plain text.
  /\.GetNetworkCredential\(\)\.Password\b/,
  /\bGet-AzKeyVaultSecret\b.*?-AsPlainText\b/i,
  // A user and a password, or a variable, encoded (`echo -n deploy:p | base64`); not JSON or a
  // host and its port.
  new RegExp(
    String.raw`${ECHOED}["']?(?:[\w.@+-]+:(?!\d+["']?\s*\|)[^\s|'"{}]+|\$\{?[A-Za-z_]\w*\}?)["']?\s*\|\s*(?:base64|openssl\s+base64)(?:\s+-w\s*0|\s+-A)?[ \t]*$`,
  ),
  /\bsecurity\s+find-(?:generic|internet)-password\b.*?\s-w\b/,
  /\baws\s+(?:ssm\s+get-parameters?\b.*?--with-decryption|secretsmanager\s+get-secret-value\b)/,
  /\bgcloud\s+secrets\s+versions\s+access\b/,
  /\baz\s+keyvault\s+secret\s+show\b.*?--query\s+["']?value\b/,
  /\b(?:gopass\s+show|pass\s+show|bw\s+get\s+password)\s+\S+/,
  /\bcat\s+\S*(?:\/run\/secrets\/|\/secrets?\/|password|passwd|secret|token|credential|master\.key)\S*[ \t]*$/i,
];

/** Cheap pre-checks: every reader holds one of these. */
export const PRINTED_SECRET_NEEDLES: readonly string[] = [
  "echo",
  "printf",
  "printenv",
  "vault ",
  "op ",
  "kubectl",
  "security ",
  "aws ",
  "gcloud ",
  "az ",
  "pass ",
  "bw ",
  "cat ",
  "terraform ",
  "tofu ",
  "heroku ",
  "doppler ",
  "GetNetworkCredential",
  "KeyVaultSecret",
  "k get",
  "oc ",
];

/**
 * A printed secret: one token on its line, bare or in double quotes (`terraform output x`), not a
 * prompt, a path or JSON (other rules read those).
 */
const PRINTED = /^[ \t]*"?([^\s"'`{[$#>][^\s"'`]{3,511})"?[ \t]*$/;

/** Appends the line after each command of `READERS` in `text` when it holds one token. */
export function scanPrintedSecrets(text: string, out: Detection[], rule: string): void {
  const lines = linesOf(text);
  for (let i = 0; i + 1 < lines.length; i++) {
    // The output first: most lines are not one token, and its test is the cheaper. Only the
    // line right after: an empty one is an empty value's (`echo $UNSET`).
    const next = lines[i + 1] as Line;
    const m = PRINTED.exec(text.slice(next.start, next.end));
    if (m?.[1] === undefined || isPlaceholder(m[1])) continue;
    const line = lines[i] as Line;
    const command = text.slice(line.start, line.end);
    if (!READERS.some((re) => isReader(re, command))) continue;
    const start = next.start + (m.index + m[0].indexOf(m[1]));
    out.push({ start, end: start + m[1].length, rule, kind: "secret" });
  }
}

/** Does `command` match reader `re`, the name it reads (if it captures one) naming a credential? */
function isReader(re: RegExp, command: string): boolean {
  const m = re.exec(command);
  if (m === null) return false;
  const name = m[1];
  if (name === undefined) return true;
  const strength = credentialName(name);
  return strength === "strong" || strength === "qualified";
}
