/**
 * Just enough of a PDF reader to check a printout: the pages in order, each with its MediaBox and the text it
 * shows, run by run, with the font size each run is set in. Written for the PDFs LibreOffice exports
 * (FlateDecode content streams, fonts with a ToUnicode CMap, text shown by Tj / TJ after Td and Tf).
 */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';

export interface PdfTextRun {
  text: string;
  /** The size given to Tf: LibreOffice writes the printed size there (the sheet's scale applied). */
  size: number;
  /** Where it starts (the text position its BT … Td set), in points from the page's bottom left. */
  x: number;
  y: number;
  /** How far it reaches, in points: its glyphs' widths (the font's /Widths) and the TJ adjustments. */
  width: number;
}

export interface PdfPage {
  /** [x0, y0, x1, y1] in points. */
  mediaBox: number[];
  runs: PdfTextRun[];
  /** Every run's text, joined by spaces. */
  text: string;
}

interface PdfObject {
  dictionary: string;
  stream?: Buffer;
}

export function readPdfPages(file: string): PdfPage[] {
  const bytes = readFileSync(file);
  const source = bytes.toString('latin1');
  const objects = new Map<number, PdfObject>();
  const objectStart = /(\d+) 0 obj\b/g;
  for (let match = objectStart.exec(source); match; match = objectStart.exec(source)) {
    const end = source.indexOf('endobj', match.index);
    const body = source.slice(match.index + match[0].length, end);
    const streamAt = body.indexOf('stream');
    if (streamAt < 0) {
      objects.set(Number(match[1]), { dictionary: body });
      continue;
    }
    const dataStart =
      match.index + match[0].length + streamAt + 'stream'.length + (body[streamAt + 6] === '\r' ? 2 : 1);
    const dataEnd = source.lastIndexOf('endstream', end);
    const raw = bytes.subarray(dataStart, dataEnd);
    const dictionary = body.slice(0, streamAt);
    objects.set(Number(match[1]), { dictionary, stream: /FlateDecode/.test(dictionary) ? inflateSync(raw) : raw });
  }
  const deref = (text: string): PdfObject | undefined => {
    const ref = /^\s*(\d+) 0 R/.exec(text);
    return ref ? objects.get(Number(ref[1])) : undefined;
  };

  // Pages in document order: walk the page tree from the catalog's /Pages.
  const catalog = [...objects.values()].find((o) => /\/Type\s*\/Catalog/.test(o.dictionary))!;
  const pages: PdfPage[] = [];
  const visit = (node: PdfObject, inheritedBox: number[] | undefined, inheritedResources: string | undefined) => {
    const box = /\/MediaBox\s*\[([^\]]*)\]/.exec(node.dictionary)?.[1]?.trim().split(/\s+/).map(Number) ?? inheritedBox;
    const resources = /\/Resources\s*(\d+ 0 R|<<)/.exec(node.dictionary)
      ? resourcesOf(node.dictionary)
      : inheritedResources;
    if (/\/Type\s*\/Pages\b/.test(node.dictionary)) {
      const kids = /\/Kids\s*\[([^\]]*)\]/.exec(node.dictionary)![1]!;
      for (const ref of kids.matchAll(/(\d+) 0 R/g)) visit(objects.get(Number(ref[1]))!, box, resources);
      return;
    }
    const contents = /\/Contents\s*(\[[^\]]*\]|\d+ 0 R)/.exec(node.dictionary)![1]!;
    const streams = [...contents.matchAll(/(\d+) 0 R/g)].map((ref) =>
      objects.get(Number(ref[1]))!.stream!.toString('latin1'),
    );
    const runs = showText(streams.join('\n'), fontMaps(resources ?? ''));
    pages.push({ mediaBox: box ?? [], runs, text: runs.map((r) => r.text).join(' ') });
  };
  const resourcesOf = (dictionary: string): string => {
    const at = dictionary.indexOf('/Resources');
    const rest = dictionary.slice(at + '/Resources'.length);
    const indirect = deref(rest);
    return indirect ? indirect.dictionary : rest;
  };
  const fontMaps = (resources: string): Map<string, PdfFont> => {
    const maps = new Map<string, PdfFont>();
    const fontEntry = /\/Font\s*(\d+ 0 R|<<([^>]*)>>)/.exec(resources);
    if (!fontEntry) return maps;
    const fonts = fontEntry[2] ?? deref(fontEntry[1]!)!.dictionary;
    for (const [, name, id] of fonts.matchAll(/\/(\w+)\s+(\d+) 0 R/g)) {
      const dictionary = objects.get(Number(id))!.dictionary;
      const toUnicode = /\/ToUnicode\s+(\d+) 0 R/.exec(dictionary);
      const firstChar = Number(/\/FirstChar\s+(\d+)/.exec(dictionary)?.[1] ?? 0);
      const widths = (/\/Widths\s*\[([^\]]*)\]/.exec(dictionary)?.[1] ?? '').trim().split(/\s+/).map(Number);
      maps.set(name!, {
        map: toUnicode ? parseCMap(objects.get(Number(toUnicode[1]))!.stream!.toString('latin1')) : new Map(),
        width: (code) => widths[code - firstChar] ?? 0,
      });
    }
    return maps;
  };
  visit(objects.get(Number(/\/Pages\s+(\d+) 0 R/.exec(catalog.dictionary)![1]))!, undefined, undefined);
  return pages;
}

/** A ToUnicode CMap: code (hex, as written) → text. */
function parseCMap(cmap: string): Map<string, string> {
  const map = new Map<string, string>();
  const unicode = (hex: string) => String.fromCharCode(...(hex.match(/.{4}/g) ?? []).map((h) => parseInt(h, 16)));
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const [, code, text] of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g))
      map.set(code!.toUpperCase(), unicode(text!));
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const [, from, to, text] of block[1]!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) {
      const width = from!.length;
      for (let code = parseInt(from!, 16), n = 0; code <= parseInt(to!, 16); code++, n++) {
        const first = parseInt(text!, 16) + n;
        map.set(code.toString(16).toUpperCase().padStart(width, '0'), String.fromCharCode(first));
      }
    }
  }
  return map;
}

interface PdfFont {
  /** Code (hex, as written) → text. */
  map: Map<string, string>;
  /** A code's advance, in thousandths of the size. */
  width(code: number): number;
}

/** The text runs of a content stream: each Tj / TJ in the font and size of the last Tf, where BT … Td put it. */
function showText(content: string, fonts: Map<string, PdfFont>): PdfTextRun[] {
  const runs: PdfTextRun[] = [];
  let font: PdfFont = { map: new Map(), width: () => 0 };
  let size = 0;
  let x = 0;
  let y = 0;
  const codes = (hex: string) => {
    const width = font.map.size > 0 ? [...font.map.keys()][0]!.length : 2;
    return hex.toUpperCase().match(new RegExp(`.{1,${width}}`, 'g')) ?? [];
  };
  const decode = (hex: string) =>
    codes(hex)
      .map((code) => font.map.get(code) ?? '')
      .join('');
  const advance = (hex: string) => codes(hex).reduce((sum, code) => sum + font.width(parseInt(code, 16)), 0);
  const operators =
    /\bBT\b|(-?[\d.]+)\s+(-?[\d.]+)\s+Td|\/(\w+)\s+([\d.]+)\s+Tf|\[((?:[^\]\\]|\\.)*)\]\s*TJ|<([0-9A-Fa-f]*)>\s*Tj/g;
  for (const m of content.matchAll(operators)) {
    if (m[0] === 'BT') {
      x = 0;
      y = 0;
    } else if (m[1] !== undefined) {
      x += Number(m[1]);
      y += Number(m[2]);
    } else if (m[3] !== undefined) {
      font = fonts.get(m[3]) ?? { map: new Map(), width: () => 0 };
      size = Number(m[4]);
    } else if (m[5] !== undefined) {
      const parts = [...m[5].matchAll(/<([0-9A-Fa-f]*)>|(-?[\d.]+)/g)];
      const text = parts.map((h) => (h[1] !== undefined ? decode(h[1]) : '')).join('');
      // A TJ number moves the next glyph left by its thousandths of the size.
      const units = parts.reduce((sum, h) => sum + (h[1] !== undefined ? advance(h[1]) : -Number(h[2])), 0);
      runs.push({ text, size, x, y, width: (units / 1000) * size });
    } else {
      runs.push({ text: decode(m[6]!), size, x, y, width: (advance(m[6]!) / 1000) * size });
    }
  }
  return runs;
}
