/**
 * Preloaded into a measured child (`node --import <this> …`): when the process exits, writes its peak
 * resident set (KiB, from getrusage) to the file named by PINRECON_BENCH_RSS_FILE, and its CPU seconds (user +
 * system, all threads) to that name + ".cpu". The parent cannot read a child's rusage from Node, and polling
 * /proc misses the last moments.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.PINRECON_BENCH_RSS_FILE;
if (file)
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(file, String(usage.maxRSS));
    writeFileSync(`${file}.cpu`, String((usage.userCPUTime + usage.systemCPUTime) / 1e6));
  });
