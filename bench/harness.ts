/** The shape every benchmark returns, and the small helpers they share. */

export interface BenchTarget {
  /** e.g. "achieved rate ≥ 0.95 × configured" */
  label: string;
  /** The measured value, as shown in the table. */
  measured: string;
  ok: boolean;
}

export interface BenchResult {
  /** Facts measured, for the table (units in the key, e.g. "rows_per_s"). */
  metrics: Record<string, number | string>;
  targets: BenchTarget[];
  /** One or two sentences on what was measured and how. */
  notes?: string;
}

export interface BenchModule {
  name: string;
  /** The BENCHMARKS.md section this run replaces; default the file's name. */
  section?: string;
  run(): Promise<BenchResult>;
}

/** Wall-clock seconds of `work`. */
export async function timed<T>(work: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await work();
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, value };
}

/** Peak resident set size of this process so far, in MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}
