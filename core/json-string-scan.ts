/**
 * Finding where a JSON string ends in a chunk of bytes, for the PIN masker, which reads hundreds of megabytes a
 * month-end: it jumps from quote to quote with Buffer.indexOf (native). The answer check, whose work per string is
 * less, looks at every byte in one loop instead (sources/partner-api/json-array-check.ts: measured faster there).
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Where the next backslash is, cached per chunk so that a chunk without any is searched once, not per string. */
export class StringScanner {
  private chunk: Buffer | undefined;
  private nextBackslash = -1;

  /**
   * Reads string content of `chunk` from `from` (just after the opening quote, or where the previous chunk left
   * off inside the string; `escaped` when that chunk ended on a backslash). Returns the index of the closing
   * quote, or -1 when the string goes on past the chunk, with `escaped` for the next chunk; `sawEscape` when an
   * escape began or ended within what was read (the masker decodes only such member names, issue 34).
   */
  end(chunk: Buffer, from: number, escaped: boolean): { at: number; escaped: boolean; sawEscape: boolean } {
    if (chunk !== this.chunk) {
      this.chunk = chunk;
      this.nextBackslash = -1;
    }
    let i = from;
    let sawEscape = escaped;
    if (escaped) {
      if (i >= chunk.length) return { at: -1, escaped: true, sawEscape };
      i++; // the escaped byte, whatever it is
    }
    for (;;) {
      if (i >= chunk.length) return { at: -1, escaped: false, sawEscape };
      const quote = chunk.indexOf(QUOTE, i);
      if (this.nextBackslash !== chunk.length && this.nextBackslash < i) {
        const found = chunk.indexOf(BACKSLASH, i);
        this.nextBackslash = found === -1 ? chunk.length : found;
      }
      const backslash = this.nextBackslash;
      if (quote !== -1 && quote < backslash) return { at: quote, escaped: false, sawEscape };
      if (backslash >= chunk.length) return { at: -1, escaped: false, sawEscape };
      // An escape before the next quote: skip it and the byte it escapes.
      sawEscape = true;
      if (backslash + 1 >= chunk.length) return { at: -1, escaped: true, sawEscape };
      i = backslash + 2;
    }
  }
}
