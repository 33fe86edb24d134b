/**
 * Text that came from files or the provider, made safe for where it goes: a terminal (no control
 * characters or escape sequences that could rewrite the screen, hide lines or set the window title), a
 * spreadsheet opening a CSV (no cell that starts a formula), and an Excel cell (at most 32,767 characters).
 */

/** Excel's limit for one cell; also the limit for raw text pinrecon stores. */
export const maxCellCharacters = 32_767;

/** ANSI/VT escape sequences: CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), and two-character ESC x. */
const escapeSequence = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])|\x9b[0-?]*[ -/]*[@-~]/g;
/** C0 controls but tab and newline, DEL, and C1 controls (a lone \r would let a line overwrite itself). */
const controlCharacter = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Characters that change the direction of what follows (U+202E makes "exe.txt" read "txt.exe"): shown as their
 * code, never acted on by a terminal (issue 34).
 */
const bidiControl = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A character as `<U+202E>`, how a console shows what it must not act on. */
const codePoint = (c: string) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`;

/**
 * The text with terminal escape sequences and control characters removed (tab and newline kept), and direction
 * controls shown as their code point.
 */
export function printable(text: string): string {
  return text.replace(escapeSequence, '').replace(controlCharacter, '').replace(bidiControl, codePoint);
}

/**
 * Characters a person does not see or type in a reference: format characters (zero-width space and joiners, the
 * soft hyphen, the word joiner, direction controls, the byte order mark), line and paragraph separators, and the
 * spaces that are not the space (NBSP and its kin). Two references that look the same would not match (issue 34).
 */
const invisibleCharacter = /[\p{Cf}\p{Zl}\p{Zp}\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/u;

/** The same class in DuckDB's regular expressions (RE2), for SQL that must leave such text to the check above. */
export const invisibleCharacterSql =
  '[\\p{Cf}\\p{Zl}\\p{Zp}\\x{00A0}\\x{1680}\\x{2000}-\\x{200A}\\x{202F}\\x{205F}\\x{3000}]';

const invisibleNames: Record<number, string> = {
  0x00a0: 'NO-BREAK SPACE',
  0x00ad: 'SOFT HYPHEN',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0xfeff: 'BYTE ORDER MARK',
};

/** The first invisible character of a text: where (1-based) and what, as `U+200B ZERO WIDTH SPACE`. */
export function invisibleIn(text: string): { at: number; what: string } | undefined {
  const match = invisibleCharacter.exec(text);
  if (!match) return undefined;
  const code = match[0].charCodeAt(0);
  const name = invisibleNames[code];
  const what = `U+${code.toString(16).toUpperCase().padStart(4, '0')}${name ? ` ${name}` : ''}`;
  return { at: match.index + 1, what };
}

/**
 * What JSON.stringify leaves raw that a terminal may still act on: DEL, C1 controls (0x9b is CSI), line separators,
 * direction controls.
 */
const rawInJson = /[\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A value as JSON safe to print on a terminal: JSON.stringify escapes C0 controls (ESC becomes \u001b) but
 * leaves DEL and C1 controls raw; those are escaped too. The JSON still reads back to the same value.
 */
export function printableJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(
    rawInJson,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A plain number ("-12.50", "+3", "1e5") may start with a sign: it is no formula. */
const plainNumber = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A CSV cell that a spreadsheet would run as a formula (starting with = + - @, or a tab or carriage
 * return before one) gets a leading apostrophe, which spreadsheets show as text. Plain numbers stay.
 */
export function neutralizeFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) && !plainNumber.test(text) ? `'${text}` : text;
}

/** The same rule in DuckDB SQL, for a VARCHAR expression (export's COPY). */
export function neutralizeFormulaSql(expression: string): string {
  return (
    `CASE WHEN regexp_matches(${expression}, '^[=+\\-@\\t\\r]') ` +
    `AND NOT regexp_matches(${expression}, '^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?$') ` +
    `THEN '''' || ${expression} ELSE ${expression} END`
  );
}

/** Text cut to what one Excel cell holds, saying how long it was. */
export function fitCell(text: string): string {
  if (text.length <= maxCellCharacters) return text;
  const note = `… (cut: ${text.length} characters)`;
  let kept = text.slice(0, maxCellCharacters - note.length);
  // Never half a surrogate pair at the cut: an emoji is kept whole or dropped.
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return `${kept}${note}`;
}

const htmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and attribute values (the emails' HTML part). */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => htmlEntities[c]!);
}
