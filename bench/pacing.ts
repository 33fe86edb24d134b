/**
 * Pacing: ≥ 1,000 requests through the client at a configured 50/s against the simulator (whose limit is
 * 50 in any rolling second), with 25 callers in flight so latency is never the bottleneck. Measures the
 * achieved rate, 503s, and the most requests in any rolling second — seen by the simulator and by the
 * client's own start timestamps.
 */
import { performance } from 'node:perf_hooks';
import { configSchema } from '../config/schema.js';
import { PartnerApiClient } from '../sources/partner-api/client.js';
import { RateLimiter } from '../sources/partner-api/rate-limiter.js';
import { startSimulator } from '../sources/simulator/server.js';
import type { BenchResult } from './harness.js';
import { maxInAnyRollingSecond } from './measures/rolling-second.js';

export const name = 'pacing';

const RATE = 50;
const REQUESTS = 1_000;
const CALLERS = 25;

export async function run(): Promise<BenchResult> {
  const simulator = await startSimulator({ seed: 3, identifier: 'bench', secret: 'bench-secret', rateLimitPerSecond: RATE, dataset: { from: '2024-01-01', to: '2024-01-02', salesCount: 10 } });
  const api = configSchema.parse({ api: { baseUrl: simulator.url, identifier: 'bench', secret: 'bench-secret', maxRequestsPerSecond: RATE } }).api;
  // The client's own start timestamps: taken as the limiter lets each attempt go.
  const starts: number[] = [];
  const limiter = new RateLimiter(api.maxRequestsPerSecond);
  const acquire = limiter.acquire.bind(limiter);
  limiter.acquire = async () => {
    await acquire();
    starts.push(performance.now());
  };
  const client = new PartnerApiClient(api, { limiter });
  const productId = simulator.dataset.catalog.available({})[0]!.id;
  const latencies: number[] = [];
  try {
    let issued = 0;
    const began = performance.now();
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (issued < REQUESTS) {
          issued++;
          const t = performance.now();
          await client.productStock(productId);
          latencies.push(performance.now() - t);
        }
      }),
    );
    const seconds = (performance.now() - began) / 1000;
    const server = simulator.stats();
    const steady = (starts.length - 1) / ((starts[starts.length - 1]! - starts[0]!) / 1000);
    const clientMax = maxInAnyRollingSecond(starts);
    latencies.sort((a, b) => a - b);
    return {
      metrics: {
        requests: client.stats.requests,
        seconds: Number(seconds.toFixed(2)),
        achieved_rps: Number(steady.toFixed(2)),
        achieved_ratio: Number((steady / RATE).toFixed(3)),
        overall_rps_incl_startup: Number((client.stats.requests / seconds).toFixed(2)),
        server_503s: server.rateLimited,
        server_max_in_rolling_second: server.maxInAnyRollingSecond,
        client_max_in_rolling_second: clientMax,
        client_retries: client.stats.retries,
        latency_p50_ms: Number(latencies[Math.floor(latencies.length * 0.5)]!.toFixed(1)),
        latency_p99_ms: Number(latencies[Math.floor(latencies.length * 0.99)]!.toFixed(1)),
      },
      targets: [
        { label: `achieved rate ≥ 0.95 × ${RATE}/s`, measured: `${steady.toFixed(2)}/s (${((steady / RATE) * 100).toFixed(1)} %)`, ok: steady >= 0.95 * RATE },
        { label: 'zero 503s', measured: String(server.rateLimited), ok: server.rateLimited === 0 && client.stats.rateLimited === 0 },
        {
          label: `never more than ${RATE} in any rolling second`,
          measured: `simulator ${server.maxInAnyRollingSecond}, client ${clientMax}`,
          ok: server.maxInAnyRollingSecond <= RATE && clientMax <= RATE,
        },
      ],
      notes: `${REQUESTS} productStock calls (+ the token call) from ${CALLERS} concurrent callers through one RateLimiter at ${RATE}/s, against the simulator on 127.0.0.1 limiting at ${RATE} in any rolling second. Achieved rate = (starts − 1) / (last start − first start).`,
    };
  } finally {
    client.close();
    await simulator.close();
  }
}
