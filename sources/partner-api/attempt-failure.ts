/**
 * What went wrong in one HTTP attempt, in the retry policy's terms: rate limited, a server error, a timeout, a
 * dropped connection, an unreachable host. Node's error codes are sorted into these kinds here, once.
 */

/** `slow_download`: a sales download cut for bringing too little an interval, or for its whole length (issue 34). */
export type FailureKind = 'rate_limited' | 'server_error' | 'timeout' | 'slow_download' | 'dropped' | 'unreachable';

/** One attempt that did not get a usable answer; the retry policy decides what happens next. */
export class AttemptFailure extends Error {
  override name = 'AttemptFailure';
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status?: number,
    readonly body?: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /** Whether the provider may have acted on the request (a 503 is a clear "not processed"). */
  get ambiguous(): boolean {
    return this.kind !== 'rate_limited' && this.kind !== 'unreachable';
  }
}

const droppedCodes = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
  'ETIMEDOUT',
]);
const unreachableCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** A local file-system failure (writing a download): not the provider's doing, so never retried. */
export function isFileSystemError(error: unknown): boolean {
  const { code, syscall } = error as NodeJS.ErrnoException;
  return (
    !droppedCodes.has(code ?? '') && ['open', 'write', 'rename', 'mkdir', 'close', 'fsync'].includes(syscall ?? '')
  );
}

/** A network error as the AttemptFailure it means; any other error is returned as it is. */
export function asAttemptFailure(error: unknown): unknown {
  if (error instanceof AttemptFailure) return error;
  if (!(error instanceof Error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code && unreachableCodes.has(code)) return new AttemptFailure('unreachable', `${code}`);
  if ((code && droppedCodes.has(code)) || /socket hang up|premature close|aborted/i.test(error.message)) {
    return new AttemptFailure('dropped', `connection dropped (${code ?? error.message})`);
  }
  return error;
}
