/**
 * A credential an interpreter or a debugger prints back: its prompt and an expression that reads a
 * credential, then the value on the next line (`>>> os.environ["DB_PASSWORD"]⏎'S'`, `In [3]:
 * cfg.password⏎Out[3]: 'S'`, `> process.env.STRIPE_KEY⏎'S'`, `irb(main):001> ENV["API_TOKEN"]⏎=>
 * "S"`, `(gdb) p cfg->password⏎$1 = 0x5555557592a0 "S"`, `(lldb) po self.apiKey⏎S`). An agent
 * debugging a configuration does this, and nothing on the answer's line names it.
 */
import { isPlaceholder } from "../rule-helpers.js";
import type { Detection, ValueJudge } from "../rule-types.js";
import { type Line, linesOf } from "../text-lines.js";
import { credentialName } from "./credential-names.js";

/**
 * A prompt (Python, IPython, Node, irb, pry, gdb, lldb, pdb, ipdb, Scala, JShell, IEx, Julia,
 * PowerShell, R), a debugger's print command, then the expression (group 1).
 */
const PROMPT =
  /^[ \t]*(?:>>>|In \[\d+\]:|irb\([^)\s]*\)(?::\d+)*[>*]|\[\d+\] pry\([^)\s]*\)>|\((?:gdb|lldb|Pdb|pdb)\)|i?pdb>|scala>|jshell>|iex\(\d+\)>|julia>|PS [^>\r\n]{0,200}>|>)[ \t]+(?:(?:p|po|pp|print|expr|expression|call|frame variable|p\/s|x\/s)[ \t]+)?(\S.*?)[ \t]*;?[ \t]*$/;

/** A line's start and a prompt of `PROMPT`. */
const ANY_PROMPT =
  /(?:^|\n|\\n)[ \t]*(?:>>>|In \[\d|irb\(|\[\d+\] pry\(|\((?:gdb|lldb|Pdb|pdb)\)|i?pdb>|scala>|jshell>|iex\(|julia>|PS |>)/;

/** A call that prints its argument (`print(x)`, `puts x`, `console.log(x)`), unwrapped to its argument. */
const PRINTING_CALL =
  /^(?:print|puts|p|pp|repr|str|console\.log|System\.out\.println|println!?|echo|Write-Output|write)\s*(?:\((.*)\)|\s(.*))$/;

/**
 * The name an expression ends in: a member or variable (`settings.SECRET_KEY`, `conn->passwd`,
 * `$env:API_KEY`), or the key of a lookup (`os.environ["X"]`, `os.getenv("X", "d")`, `ENV.fetch('X')`).
 */
const LAST_NAME = /(?:["']([\w.-]{1,128})["'](?:\s*,[^()[\]]*)?[)\]]|\b([A-Za-z_]\w{0,127}))$/;

/**
 * The answer: an interpreter's mark (`Out[3]:`, `=>`, gdb's `$1 =` with the string's address,
 * lldb's `(std::string) $0 =`, Scala's `res0: String =`, JShell's `$1 ==>`, R's `[1]`), then a
 * quoted string (groups 1-3; `@"…"` is Objective-C's) or one bare token (group 4).
 */
const ANSWER =
  /^[ \t]*(?:Out\[\d+\]:|=>|\$\d+ = (?:0x[\da-fA-F]+ )?|\([^()\r\n]{1,60}\) \$\d+ = (?:0x[\da-fA-F]+ )?|res\d+: [\w.[\]]+ =|\$\d+ ==>|\[1\])?[ \t]*(?:@?\\?"([^"\\\r\n]{4,512})\\?"|'([^'\r\n]{4,512})'|b'([^'\r\n]{4,512})'|([^\s"'`{[$#<>(][^\s"'`]{3,511}))[ \t]*$/;

/** Cheap pre-checks: every prompt holds one of these. */
export const INTERPRETER_NEEDLES: readonly string[] = [
  "> ",
  "In [",
  "(gdb)",
  "(lldb)",
  "(Pdb)",
  "db> ",
  "irb(",
  "pry(",
  "iex(",
];

/**
 * Appends the answer on the line after each prompt of `text` that reads a credential, when
 * `isSecret(name, value)` (the value judged as if assigned to the name: a placeholder, a path or a
 * URL is no secret there either).
 */
export function scanInterpreterEchoes(
  text: string,
  out: Detection[],
  rule: string,
  isSecret: ValueJudge,
): void {
  // Speed only: a prompt starts a line.
  if (!ANY_PROMPT.test(text)) return;
  const lines = linesOf(text);
  for (let i = 0; i + 1 < lines.length; i++) {
    // The answer first: most lines are not one quoted string or token.
    const next = lines[i + 1] as Line;
    const answer = ANSWER.exec(text.slice(next.start, next.end));
    if (answer === null) continue;
    const value = answer[1] ?? answer[2] ?? answer[3] ?? (answer[4] as string);
    if (isPlaceholder(value)) continue;
    const line = lines[i] as Line;
    const name = readName(text.slice(line.start, line.end));
    if (name === undefined || !isSecret(name, value)) continue;
    const start = next.start + answer.index + answer[0].lastIndexOf(value);
    out.push({ start, end: start + value.length, rule, kind: "secret" });
  }
}

/** The credential name the expression after a prompt on `line` reads, if it reads one. */
function readName(line: string): string | undefined {
  const prompt = PROMPT.exec(line);
  if (prompt === null) return undefined;
  let expression = prompt[1] as string;
  for (let call = PRINTING_CALL.exec(expression); call !== null; call = PRINTING_CALL.exec(expression)) {
    expression = (call[1] ?? call[2] ?? "").trim();
  }
  // One expression: blanks only inside its strings and brackets (`> the password` quotes prose).
  if (/\s/.test(expression.replace(/"[^"]*"|'[^']*'|\([^()]*\)|\[[^\]]*\]/g, ""))) return undefined;
  const last = LAST_NAME.exec(expression);
  const name = last?.[1] ?? last?.[2];
  if (name === undefined) return undefined;
  const strength = credentialName(name);
  return strength === "strong" || strength === "qualified" ? name : undefined;
}
