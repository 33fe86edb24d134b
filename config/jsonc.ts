/**
 * Reads a config file written as JSON with comments and trailing commas (the README's example) through the
 * kept `jsonc-parser` library: the hand-written one changed strings holding `,}` or `]` (issue 31). Errors name
 * file:line and the key where the text broke; `lineOfKey` lets the loader name the line of a rejected value too.
 */
import { findNodeAtLocation, getLocation, type ParseError, parse, parseTree, printParseErrorCode } from 'jsonc-parser';
import { ConfigError } from '../core/errors.js';

const options = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false };

/** 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Words for jsonc-parser's error codes ("CommaExpected" → "comma expected"). */
function describe(error: ParseError): string {
  return printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

/** JSON with // and /* *\/ comments and trailing commas; a byte-order mark is allowed. */
export function parseJsonc(text: string, file: string): unknown {
  const source = text.replace(/^\uFEFF/, '');
  const errors: ParseError[] = [];
  const value = parse(source, errors, options);
  const first = errors[0];
  if (first) {
    const key = getLocation(source, first.offset).path.join('.');
    const where = key ? ` at key ${key}` : '';
    throw new ConfigError(
      `${file}:${lineAt(source, first.offset)}: not valid JSON (${describe(first)}${where}). Fix the file there.`,
      file,
      key || undefined,
    );
  }
  return value;
}

/** The line where a key path (as zod reports it) is written in the file, or undefined when it is not there. */
export function lineOfKey(text: string, keyPath: readonly PropertyKey[]): number | undefined {
  const source = text.replace(/^\uFEFF/, '');
  const tree = parseTree(source, [], options);
  if (!tree) return undefined;
  for (let length = keyPath.length; length > 0; length--) {
    const segments = keyPath.slice(0, length).map((key) => (typeof key === 'number' ? key : String(key)));
    const node = findNodeAtLocation(tree, segments);
    // A property's value node: its parent is the property, whose offset is where the key is written.
    if (node) return lineAt(source, node.parent?.type === 'property' ? node.parent.offset : node.offset);
  }
  return undefined;
}
