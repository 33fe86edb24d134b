/** How every command opens the database: the configured time zone and memory limit, and (writers) the lock wait. */
import type { OpenOptions } from '../core/warehouse.js';
import type { Config } from './schema.js';

/** The slice of the config a database session needs (issue 27): any object with these keys will do. */
export type WarehouseConfig = Pick<Config, 'timezone' | 'memoryLimit' | 'lockWaitSeconds'>;

export function warehouseSettings(config: WarehouseConfig, options: OpenOptions = {}): OpenOptions {
  // A reader does not wait for the lock (it has the snapshot): Warehouse.open's own default.
  const lockWait = options.readOnly ? {} : { lockWaitSeconds: config.lockWaitSeconds };
  return { timezone: config.timezone, memoryLimit: config.memoryLimit, ...lockWait, ...options };
}
