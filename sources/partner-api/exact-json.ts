/**
 * Reading an answer's records without JSON.parse's rounding (issue 34): each element of an array as its raw text
 * (landed as received, so DuckDB reads a BIGINT id exactly) and a top-level member's value as its raw token (an
 * id above 2^53 compared as its digits); and a request body written with an exact id (`RawJson`).
 */

/** A JSON text sent as it is (JSON.stringify cannot write a bigint). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** The raw texts of the top-level elements of a JSON array; a text that is not an array is its one element. */
export function rawElements(text: string): string[] {
  const trimmed = text.trim();
  if (!trimmed.startsWith('[')) return trimmed === '' || trimmed === 'null' ? [] : [trimmed];
  const elements: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed[i]!;
    if (c === '"') {
      if (depth === 1 && start === -1) start = i;
      i = stringEnd(trimmed, i);
      continue;
    }
    if (c === '[' || c === '{') {
      if (depth === 1 && start === -1) start = i;
      depth++;
    } else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        if (start !== -1) elements.push(trimmed.slice(start, i).trim());
        break;
      }
    } else if (depth === 1) {
      if (c === ',') {
        if (start !== -1) elements.push(trimmed.slice(start, i).trim());
        start = -1;
      } else if (start === -1 && !/\s/.test(c)) start = i;
    }
  }
  return elements;
}

/**
 * The raw tokens of the top-level member `name` of a JSON object's text (names compared decoded; several when
 * the member is repeated: JSON.parse keeps the last, another reader may keep the first).
 */
export function memberTokens(objectText: string, name: string): string[] {
  const tokens: string[] = [];
  let depth = 0;
  let pendingName: string | undefined;
  let valueStart = -1;
  let matched = false;
  for (let i = 0; i < objectText.length; i++) {
    const c = objectText[i]!;
    if (c === '"') {
      const end = stringEnd(objectText, i);
      if (depth === 1 && valueStart === -1) pendingName = objectText.slice(i, end + 1);
      i = end;
      continue;
    }
    if (depth === 1 && c === ':' && pendingName !== undefined && valueStart === -1) {
      matched = decoded(pendingName) === name;
      pendingName = undefined;
      valueStart = i + 1;
      continue;
    }
    if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
    if ((depth === 1 && c === ',') || depth === 0) {
      if (valueStart !== -1 && matched) tokens.push(objectText.slice(valueStart, i).trim());
      valueStart = -1;
      matched = false;
      if (depth === 0) break;
    }
  }
  return tokens;
}

/** A record's `transactionId` as exact decimal digits; undefined unless it is one integer (not repeated). */
export function exactTransactionId(recordText: string): string | undefined {
  const tokens = memberTokens(recordText, 'transactionId');
  if (tokens.length !== 1 || !/^-?\d+$/.test(tokens[0]!)) return undefined;
  return BigInt(tokens[0]!).toString();
}

/** An id as exact decimal text, from a bigint, a safe integer or digits; undefined when it is none of them. */
export function idText(id: bigint | number | string): string | undefined {
  if (typeof id === 'bigint') return id.toString();
  if (typeof id === 'number') return Number.isSafeInteger(id) ? String(id) : undefined;
  return /^-?\d+$/.test(id.trim()) ? BigInt(id.trim()).toString() : undefined;
}

/** The index of the quote closing the string opening at `at`. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}

function decoded(quoted: string): string | undefined {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}
