/**
 * Kept answers of salesByPeriod (`simulate-api --keep-responses DIR`): a window's JSON array is rendered once
 * into DIR (gzip) and every later ask of the same window, on the same data set not changed through the API, is
 * answered from that file. A benchmark renders its windows before the timed run, so what it times is the
 * client's work, not the generator's. The answer's bytes are the same either way.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGunzip, createGzip } from 'node:zlib';
import { salesArrayChunks } from './http-wire.js';
import type { DatasetOptions, SimulatedSale } from './sale-generator.js';

/** The window a salesByPeriod answer is for. */
export interface PeriodWindow {
  startDate: string;
  finishDate: string;
  byCreateDate: boolean;
}

export class KeptResponses {
  /** Answers rendered into the folder, and answers served from it. */
  rendered = 0;
  replayed = 0;
  /** Renders under way, by file: two asks of one window render it once. */
  private readonly rendering = new Map<string, Promise<void>>();
  private readonly fingerprint: string;

  constructor(
    readonly dir: string,
    dataset: DatasetOptions,
  ) {
    mkdirSync(dir, { recursive: true });
    // Files of another data set (seed, size, dates, zone, malformed share) are never served for this one.
    const identity = [
      dataset.seed,
      dataset.salesCount,
      dataset.from,
      dataset.to,
      dataset.timezone,
      dataset.malformedEvery,
    ];
    this.fingerprint = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 12);
  }

  fileFor(window: PeriodWindow): string {
    const flag = window.byCreateDate ? 'created' : 'paid';
    return path.join(this.dir, `${this.fingerprint}_${flag}_${window.startDate}_${window.finishDate}.json.gz`);
  }

  /**
   * Answers the window from its kept file, rendering it first when it is not there yet: the file's own bytes to a
   * client that accepts gzip (nothing to compress or decompress), else decompressed.
   */
  async serve(
    response: ServerResponse,
    window: PeriodWindow,
    sales: Iterable<SimulatedSale>,
    gzip = false,
  ): Promise<void> {
    const file = this.fileFor(window);
    if (existsSync(file)) this.replayed++;
    else await this.render(file, sales);
    response.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      ...(gzip && { 'Content-Encoding': 'gzip' }),
    });
    try {
      await pipeline([createReadStream(file), ...(gzip ? [] : [createGunzip()]), response]);
    } catch (error) {
      // The client went away mid-answer: nothing to tell it.
      if (!response.destroyed) throw error;
    }
  }

  private render(file: string, sales: Iterable<SimulatedSale>): Promise<void> {
    const under = this.rendering.get(file);
    if (under) return under;
    const temporary = `${file}.part-${process.pid}`;
    const work = pipeline(
      Readable.from(salesArrayChunks(sales)),
      createGzip({ level: constants.Z_BEST_SPEED }),
      createWriteStream(temporary),
    )
      .then(() => {
        renameSync(temporary, file);
        this.rendered++;
      })
      .catch((error: unknown) => {
        rmSync(temporary, { force: true });
        throw error;
      })
      .finally(() => this.rendering.delete(file));
    this.rendering.set(file, work);
    return work;
  }
}
