/**
 * Preloaded into a measured child (`node --import <this> …`): when the process exits, writes its peak
 * resident set (KiB, from getrusage) and its user and system CPU time (µs) to the file named by
 * PINRECON_BENCH_RSS_FILE, space-separated. The parent cannot read a child's rusage from Node, and polling
 * /proc misses the last moments.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.PINRECON_BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(file, `${usage.maxRSS} ${usage.userCPUTime} ${usage.systemCPUTime}`);
  });
}
