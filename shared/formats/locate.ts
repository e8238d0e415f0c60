import { lineColumnAt } from "../canonical/index.js";

type Segment = string | number;

/** The segments of a JSON path written as `$.a[0]["odd key"]`; undefined if it is not one. */
export function pathSegments(path: string): Segment[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const out: Segment[] = [];
  let i = 1;
  while (i < path.length) {
    const rest = path.slice(i);
    const name = /^\.([A-Za-z_$][A-Za-z0-9_$]*)/.exec(rest);
    const index = /^\[(\d+)\]/.exec(rest);
    const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    if (name !== null) out.push(name[1] as string);
    else if (index !== null) out.push(Number(index[1]));
    else if (quoted !== null) out.push(JSON.parse(quoted[1] as string) as string);
    else return undefined;
    i += ((name ?? index ?? quoted) as RegExpExecArray)[0].length;
  }
  return out;
}

/**
 * Line and column (1-based, code points) where the value at JSON `path` starts in the document
 * `text` (assumed to be valid JSON); null when the path is not there. Error path only: a linear
 * scan that follows the path through the text without building the value.
 */
export function locatePath(text: string, path: string): { line: number; column: number } | null {
  const target = pathSegments(path);
  if (target === undefined) return null;
  // Stack of open containers: for objects the current member name, for arrays the current index.
  const stack: { object: boolean; key: Segment }[] = [];
  const matches = (): boolean => {
    if (stack.length !== target.length) return false;
    for (let k = 0; k < stack.length; k++) if (stack[k]?.key !== target[k]) return false;
    return true;
  };
  let i = 0;
  let expectKey = false;
  const skipWs = () => {
    while (i < text.length && " \t\r\n".includes(text[i] as string)) i++;
  };
  skipWs();
  if (target.length === 0) return lineColumnAt(text, i);
  while (i < text.length) {
    skipWs();
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top !== undefined) {
        top.key = JSON.parse(text.slice(i, j + 1)) as string;
        expectKey = false;
        i = j + 1;
        skipWs();
        i++; // the colon
        skipWs();
        if (matches()) return lineColumnAt(text, i);
        continue;
      }
      i = j + 1;
    } else if (c === "{" || c === "[") {
      stack.push({ object: c === "{", key: c === "{" ? "" : 0 });
      i++;
      skipWs();
      if (c === "{") expectKey = text[i] === '"';
      else if (text[i] !== "]" && matches()) return lineColumnAt(text, i);
    } else if (c === "}" || c === "]") {
      stack.pop();
      i++;
    } else if (c === ",") {
      i++;
      const top = stack[stack.length - 1];
      if (top?.object === true) expectKey = true;
      else if (top !== undefined) {
        top.key = (top.key as number) + 1;
        skipWs();
        if (matches()) return lineColumnAt(text, i);
      }
    } else {
      i++;
    }
  }
  return null;
}
