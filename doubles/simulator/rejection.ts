/**
 * A request the simulated service refuses. The server answers it with `status` (400 unless said otherwise)
 * and the JSON body `{ "message": ..., "code": ... }`.
 */
export class Rejection extends Error {
  override name = 'Rejection';
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}
