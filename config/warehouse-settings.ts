/** How every command opens the database: the configured time zone and memory limit, and (writers) the lock wait. */
import type { OpenOptions } from '../core/warehouse.js';
import type { Config } from './schema.js';

export function warehouseSettings(config: Config, options: OpenOptions = {}): OpenOptions {
  // A reader does not wait for the lock (it has the snapshot): Warehouse.open's own default.
  const lockWait = options.readOnly ? {} : { lockWaitSeconds: config.lockWaitSeconds };
  return { timezone: config.timezone, memoryLimit: config.memoryLimit, ...lockWait, ...options };
}
