/**
 * `KeyMasker` on a worker thread, for downloads: the PINs of a response are masked beside the main thread, which
 * meanwhile reads the socket, checks the JSON, feeds the gzip and drives the loads. One worker serves every stream
 * of the process, each under its own id; it starts on first use, stops after a second with no stream (an idle heap
 * added 70 MiB to the 1M month-end's peak RSS) and never keeps the process alive by itself. Under the test runner
 * the sources are TypeScript, which a worker cannot load on Node 20: it then runs this file's build (`npm test`
 * builds first).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { KeyMasker, type KeyProtection } from './key-protection.js';
import { packageRoot } from './paths.js';

const role = 'pinrecon-key-masker';
/** Chunks handed to the worker and not yet back, before the stream stops taking more (bounded memory). */
const chunksInFlight = 16;
/** How long the worker waits for another stream before it stops: an extract's next window opens one sooner. */
const idleMilliseconds = 1000;

type Request =
  | { type: 'open'; id: number; protection: KeyProtection }
  | { type: 'chunk'; id: number; bytes: Uint8Array }
  | { type: 'close'; id: number };

interface Reply {
  id: number;
  bytes: Uint8Array;
}

/** The worker's side: a masker per open stream, each chunk answered in the order it came. */
function serve(port: NonNullable<typeof parentPort>): void {
  const maskers = new Map<number, KeyMasker>();
  port.on('message', (request: Request) => {
    if (request.type === 'open') {
      const { mode, secret } = request.protection;
      maskers.set(request.id, new KeyMasker({ mode, ...(secret && { secret: Buffer.from(secret) }) }));
    } else if (request.type === 'close') maskers.delete(request.id);
    else {
      const chunk = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
      port.postMessage({ id: request.id, bytes: maskers.get(request.id)!.push(chunk) } satisfies Reply);
    }
  });
}

if (!isMainThread && workerData?.role === role && parentPort) serve(parentPort);

/** The worker's script: this file, or its build when this file is TypeScript source. */
function workerScript(): string {
  const own = fileURLToPath(import.meta.url);
  if (!own.endsWith('.ts')) return own;
  const built = path.join(packageRoot(), 'dist', path.relative(packageRoot(), own).replace(/\.ts$/, '.js'));
  if (!existsSync(built)) throw new Error(`pinrecon: ${built} is missing; run npm run build (npm test does)`);
  return built;
}

/** The process's masking thread: started on first use, referenced only while a stream is open. */
class MaskingThread {
  private readonly worker = new Worker(workerScript(), { workerData: { role } });
  private readonly streams = new Map<number, { reply: (bytes: Uint8Array) => void; fail: (e: Error) => void }>();
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly onGone: (thread: MaskingThread) => void) {
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => this.streams.get(reply.id)?.reply(reply.bytes));
    const gone = (error: Error) => {
      onGone(this);
      for (const stream of this.streams.values()) stream.fail(error);
      this.streams.clear();
    };
    this.worker.on('error', gone);
    this.worker.on('exit', (code) => gone(new Error(`the key-masking thread stopped (exit code ${code})`)));
  }

  open(protection: KeyProtection, reply: (bytes: Uint8Array) => void, fail: (e: Error) => void): number {
    clearTimeout(this.idle);
    const id = this.nextId++;
    if (this.streams.size === 0) this.worker.ref();
    this.streams.set(id, { reply, fail });
    this.post({ type: 'open', id, protection });
    return id;
  }

  send(id: number, chunk: Buffer): void {
    // A copy of its own, handed over without a second copy (a socket's chunk may share a larger buffer).
    const bytes = new Uint8Array(chunk);
    this.worker.postMessage({ type: 'chunk', id, bytes } satisfies Request, [bytes.buffer]);
  }

  close(id: number): void {
    if (!this.streams.delete(id)) return;
    this.post({ type: 'close', id });
    if (this.streams.size > 0) return;
    this.worker.unref();
    this.idle = setTimeout(() => {
      // Forgotten first: a stream opened from here on starts a new worker.
      this.onGone(this);
      void this.worker.terminate();
    }, idleMilliseconds);
    this.idle.unref();
  }

  private post(request: Request): void {
    this.worker.postMessage(request);
  }
}

let thread: MaskingThread | undefined;

function maskingThread(): MaskingThread {
  thread ??= new MaskingThread((gone) => {
    if (thread === gone) thread = undefined;
  });
  return thread;
}

/** Whether the worker is running (it stops when idle). */
export function maskingThreadRunning(): boolean {
  return thread !== undefined;
}

/** `keyMaskingStream` with the masking on the worker thread: the same bytes out, in the same order. */
export function keyMaskingThreadStream(protection: KeyProtection): Transform {
  const worker = maskingThread();
  let inFlight = 0;
  /** A write or the flush waiting for replies. */
  let waiting: (() => void) | undefined;
  const resume = () => {
    const next = waiting;
    waiting = undefined;
    next?.();
  };
  const id = worker.open(
    protection,
    (bytes) => {
      inFlight--;
      if (bytes.byteLength > 0) stream.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      resume();
    },
    (error) => stream.destroy(error),
  );
  const stream = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      worker.send(id, chunk);
      if (++inFlight < chunksInFlight) callback();
      else waiting = () => callback();
    },
    flush(callback: TransformCallback) {
      const done = () => {
        if (inFlight > 0) waiting = done;
        else {
          worker.close(id);
          callback();
        }
      };
      done();
    },
    destroy(error, callback) {
      worker.close(id);
      callback(error);
    },
  });
  return stream;
}
