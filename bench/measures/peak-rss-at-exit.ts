/**
 * Preloaded into a measured child (`node --import <this> …`): when the process exits, writes its peak
 * resident set (KiB, from getrusage) to the file named by PINRECON_BENCH_RSS_FILE. The parent cannot read a
 * child's rusage from Node, and polling /proc misses the last moments.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.PINRECON_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
