/** Reading JUnit XML in tests: strictly, so a report a CI system would choke on fails the test. */
import { spawnSync } from "node:child_process";

/** One `<testsuite>` of a JUnit document, with its test cases and each one's first child element. */
interface JunitSuite {
  name: string;
  tests: number;
  failures: number;
  skipped: number;
  cases: { classname: string; name: string; child: string | null; message: string | null }[];
}

/** Parses XML strictly (expat): throws on anything not well-formed. */
export function parseJunit(xml: string): { suites: JunitSuite[] } {
  const script = `
import json, sys, xml.dom.minidom as m
doc = m.parseString(sys.stdin.buffer.read())
out = []
for s in doc.getElementsByTagName("testsuite"):
    cases = []
    for c in s.getElementsByTagName("testcase"):
        kids = [k for k in c.childNodes if k.nodeType == k.ELEMENT_NODE]
        cases.append({"classname": c.getAttribute("classname"), "name": c.getAttribute("name"),
                      "child": kids[0].tagName if kids else None,
                      "message": kids[0].getAttribute("message") if kids else None})
    out.append({"name": s.getAttribute("name"), "tests": int(s.getAttribute("tests")),
                "failures": int(s.getAttribute("failures")), "skipped": int(s.getAttribute("skipped")), "cases": cases})
print(json.dumps({"suites": out}))
`;
  const result = spawnSync("python3", ["-c", script], { input: xml });
  if (result.status !== 0) throw new Error(`not well-formed XML: ${result.stderr.toString()}`);
  return JSON.parse(result.stdout.toString());
}
