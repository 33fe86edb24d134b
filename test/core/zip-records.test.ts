/**
 * `zipRecords` lays a ZIP's entries out again for a front-to-back reader: in the order asked, each with a local
 * header that carries its sizes and CRC (the archive's own headers may leave them to a data descriptor after the
 * data), and nothing else. Checked by walking the bytes it streams, against an archive written with descriptors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import { zipEntries, zipRecords } from '../../core/zip-entries.js';
import { zip } from '../support/zip.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pinrecon-zip-records-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('streams the entries asked for, in that order, each header with its sizes and CRC and no data descriptor', async () => {
  const texts: Record<string, string> = {
    'xl/worksheets/sheet1.xml': `<sheetData>${'<row r="1"><c><v>12345</v></c></row>'.repeat(5_000)}</sheetData>`,
    'xl/sharedStrings.xml': '<sst><si><t>Pedido</t></si></sst>',
    'xl/workbook.xml': '<workbook><sheets><sheet name="Vendas"/></sheets></workbook>',
  };
  const file = path.join(dir, 'descriptors.zip');
  writeFileSync(file, zip(Object.entries(texts), { dataDescriptors: true }));
  const entries = zipEntries(file);
  const wanted = ['xl/workbook.xml', 'xl/worksheets/sheet1.xml'].map((name) => entries.get(name)!);

  const { stream, bytes } = zipRecords(file, wanted);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const out = Buffer.concat(chunks);
  expect(out.length).toBe(bytes);

  const seen: string[] = [];
  let at = 0;
  while (at < out.length) {
    expect(out.readUInt32LE(at)).toBe(0x04034b50);
    const flags = out.readUInt16LE(at + 6);
    const crc = out.readUInt32LE(at + 14);
    const compressed = out.readUInt32LE(at + 18);
    const uncompressed = out.readUInt32LE(at + 22);
    const name = out.toString('utf8', at + 30, at + 30 + out.readUInt16LE(at + 26));
    const dataStart = at + 30 + out.readUInt16LE(at + 26) + out.readUInt16LE(at + 28);
    const entry = entries.get(name)!;
    expect(flags & 0x0008).toBe(0);
    expect([crc, compressed, uncompressed]).toEqual([entry.header.crc32, entry.compressedSize, entry.uncompressedSize]);
    expect(inflateRawSync(out.subarray(dataStart, dataStart + compressed)).toString('utf8')).toBe(texts[name]);
    seen.push(name);
    at = dataStart + compressed;
  }
  expect(seen).toEqual(['xl/workbook.xml', 'xl/worksheets/sheet1.xml']);
});
