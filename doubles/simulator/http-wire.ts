/** The simulator's HTTP wire: reading a JSON body, sending JSON, streaming a sales list with backpressure. */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { wireRecord, type SimulatedSale } from './sale-generator.js';
import { Rejection } from './rejection.js';

const MAX_BODY_BYTES = 1024 * 1024;
const STREAM_CHUNK_CHARS = 64 * 1024;

export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new Rejection('body_too_large', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Rejection('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new Rejection('invalid_request', 'The request body must be a JSON object.');
  }
  return body;
}

/** A whole JSON response; with `dropMidResponse`, half of it is sent and the connection destroyed. */
export function sendJson(response: ServerResponse, status: number, value: unknown, dropMidResponse = false): void {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
  if (dropMidResponse) {
    response.write(body.subarray(0, Math.floor(body.length / 2)), () => response.destroy());
    return;
  }
  response.end(body);
}

/** A JSON array of sales records as text chunks of about STREAM_CHUNK_CHARS; the last one closes the array. */
export function* salesArrayChunks(sales: Iterable<SimulatedSale>): Generator<string> {
  let chunk = '[';
  let first = true;
  for (const sale of sales) {
    chunk += (first ? '' : ',') + JSON.stringify(wireRecord(sale));
    first = false;
    if (chunk.length >= STREAM_CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}]`;
}

/** Streams a JSON array of sales records in chunks, waiting for the socket to drain between them. */
export async function streamSales(
  response: ServerResponse,
  sales: Iterable<SimulatedSale>,
  dropMidResponse: boolean,
): Promise<void> {
  response.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
  const chunks = salesArrayChunks(sales);
  for (let next = chunks.next(); !next.done; ) {
    const chunk = next.value;
    next = chunks.next();
    const last = next.done === true;
    if (response.destroyed) return; // the client went away: stop generating
    if (dropMidResponse) {
      // A full chunk, or half of a short answer: never the whole array.
      response.write(last ? chunk.slice(0, Math.ceil((chunk.length - 1) / 2)) : chunk, () => response.destroy());
      return;
    }
    if (last) response.end(chunk);
    else if (!response.write(chunk)) await drained(response);
  }
}

export function drained(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}
