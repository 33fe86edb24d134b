/** A ZIP archive written by hand, for tests that need an XLSX shaped exactly so (part order, a zip bomb). */
import { crc32, deflateRawSync } from 'node:zlib';

/**
 * A ZIP archive of deflated entries, in the order given. `dataDescriptors`: as streaming writers store them, each
 * local header without sizes or CRC (flag bit 3) and a data descriptor after the data (the central directory has all).
 */
export function zip(entries: [name: string, text: string][], options: { dataDescriptors?: boolean } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of entries) {
    const data = Buffer.from(text, 'utf8');
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    const flags = options.dataDescriptors ? 0x0808 : 0x0800;
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(8, 8);
    if (!options.dataDescriptors) {
      local.writeUInt32LE(crc32(data), 14);
      local.writeUInt32LE(packed.length, 18);
      local.writeUInt32LE(data.length, 22);
    }
    local.writeUInt16LE(nameBytes.length, 26);
    const descriptor = Buffer.alloc(options.dataDescriptors ? 16 : 0);
    if (options.dataDescriptors) {
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc32(data), 4);
      descriptor.writeUInt32LE(packed.length, 8);
      descriptor.writeUInt32LE(data.length, 12);
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed, descriptor);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + packed.length + descriptor.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
