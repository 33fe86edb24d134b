/**
 * Reading an answer's records without JSON.parse's rounding (issue 34): each element of an array as its raw text
 * (landed as received, so DuckDB reads a BIGINT id exactly) and a top-level member's value as its raw token (an
 * id above 2^53 compared as its digits); and a request body written with an exact id (`RawJson`). The text is read
 * by the kept jsonc-parser (strict JSON here), whose nodes say where each value is written.
 */
import { type Node, parseTree } from 'jsonc-parser';

/** An answer is JSON: no comments, no trailing commas. */
const strict = { disallowComments: true, allowTrailingComma: false };

/** A JSON text sent as it is (JSON.stringify cannot write a bigint). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** The raw texts of the top-level elements of a JSON array; a text that is not an array is its one element. */
export function rawElements(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'null') return [];
  const tree = parseTree(trimmed, [], strict);
  if (tree?.type !== 'array') return [trimmed];
  return (tree.children ?? []).map((element) => rawText(trimmed, element));
}

/**
 * The raw tokens of the top-level member `name` of a JSON object's text (names compared decoded; several when
 * the member is repeated: JSON.parse keeps the last, another reader may keep the first).
 */
export function memberTokens(objectText: string, name: string): string[] {
  const tree = parseTree(objectText, [], strict);
  if (tree?.type !== 'object') return [];
  return (tree.children ?? []).flatMap(({ children: [key, value] = [] }) =>
    key?.value === name && value ? [rawText(objectText, value)] : [],
  );
}

/** A record's `transactionId` as exact decimal digits; undefined unless it is one integer (not repeated). */
export function exactTransactionId(recordText: string): string | undefined {
  const tokens = memberTokens(recordText, 'transactionId');
  return tokens.length === 1 ? idText(tokens[0]!) : undefined;
}

/** An id as exact decimal text, from a bigint, a safe integer or digits; undefined when it is none of them. */
export function idText(id: bigint | number | string): string | undefined {
  if (typeof id === 'bigint') return id.toString();
  if (typeof id === 'number') return Number.isSafeInteger(id) ? String(id) : undefined;
  return /^-?\d+$/.test(id.trim()) ? BigInt(id.trim()).toString() : undefined;
}

/** A node's text as it is written (its digits as received, not as JSON.parse rounds them). */
function rawText(text: string, node: Node): string {
  return text.slice(node.offset, node.offset + node.length);
}
