/**
 * The `security` section of the configuration: what of a PIN is kept on disk.
 */
import { z } from 'zod';

export const securitySchema = z
  .strictObject({
    /**
     * What of a PIN is kept on disk (database and landing files): `store` the whole key; `hash` its last 4
     * characters and an HMAC-SHA256 of it (secret: PINRECON_KEY_SECRET, else `pinrecon.key` beside the
     * database); `drop` its last 4 only. Default: `hash` for a new database; an existing database keeps
     * the mode it recorded (a contradicting value is refused; `pinrecon keys protect` migrates `store`).
     */
    keys: z.enum(['store', 'hash', 'drop']).optional(),
  })
  .prefault({});

export type SecurityConfig = z.output<typeof securitySchema>;
