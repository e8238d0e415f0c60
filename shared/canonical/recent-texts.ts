/**
 * Short ASCII texts decoded lately, each in a slot chosen by a hash of its bytes: the same member
 * names and many of the same values (an event type, a session id, a tool name) come line after
 * line. A hit costs no decoding and gives the same string again, whose hash V8 already knows
 * (a property or map lookup by a fresh string computes it anew). Owned by one reader, never shared.
 */
export class RecentTexts {
  private readonly texts: string[] = new Array<string>(256).fill("");

  /**
   * The UTF-8 text `buf[start, end)`; `key` is any number the caller derives from those bytes
   * (equal bytes must give an equal key for a hit, but a wrong key only costs a miss).
   */
  text(buf: Buffer, start: number, end: number, key: number): string {
    const len = end - start;
    const slot = Math.imul(key ^ len, 0x9e3779b1) >>> 24;
    const cached = this.texts[slot] as string;
    if (cached.length === len) {
      let k = 0;
      while (k < len && cached.charCodeAt(k) === buf[start + k]) k++;
      if (k === len) return cached;
    }
    const text = buf.toString("utf8", start, end);
    // Only short ASCII texts (as many UTF-16 units as bytes) are kept: equal units mean equal bytes.
    if (text.length === len && len <= 64) this.texts[slot] = text;
    return text;
  }
}
