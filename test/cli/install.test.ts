/**
 * Issue 31 items 2 and 8: the README's production install, `npm ci --omit=dev` from a fresh clone, builds pinrecon
 * (it failed: `prepare` ran tsc, a dev dependency). The registry is not reachable from the tests, so the parts that
 * can run offline are run: the lockfile marks everything the build needs as production (what `npm ci --omit=dev`
 * installs), and a fresh clone given only the production dependencies builds and runs with `prepare`, the script
 * `npm ci` runs after installing. The package ships LICENSE and docs/DATA.md, not the benches.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../core/paths.js';

const root = packageRoot();
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
};

/** The packages `npm ci --omit=dev` installs: those the lockfile does not mark dev. */
function productionPackages(): string[] {
  return Object.entries(lock.packages)
    .filter(([key, entry]) => key.startsWith('node_modules/') && !entry.dev && !entry.devOptional)
    .map(([key]) => key.slice('node_modules/'.length))
    .filter((name) => !name.includes('/node_modules/'));
}

describe('production install', () => {
  it('is the command the README gives, and the lockfile installs everything the build needs without dev', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme).toMatch(/```sh\nnpm ci --omit=dev\n```/);
    expect(manifest.scripts.prepare).toMatch(/^tsc -p tsconfig\.install\.json /);
    const production = new Set(productionPackages());
    for (const needed of ['typescript', '@types/node', '@types/nodemailer', '@types/smtp-server', 'undici-types'])
      expect(production.has(needed), needed).toBe(true);
  });

  it("builds a fresh clone with production dependencies alone, through npm ci's prepare; ships what users need", () => {
    const dir = mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'pinrecon-install-'));
    const clone = path.join(dir, 'pinrecon');
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', root, clone]);
    // What `npm ci --omit=dev` puts in node_modules, taken from this checkout's installed copies.
    const modules = path.join(clone, 'node_modules');
    mkdirSync(path.join(modules, '.bin'), { recursive: true });
    for (const name of productionPackages()) {
      if (!existsSync(path.join(root, 'node_modules', name))) continue; // an optional package of another platform
      mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
      symlinkSync(path.join(root, 'node_modules', name), path.join(modules, name));
    }
    symlinkSync('../typescript/bin/tsc', path.join(modules, '.bin', 'tsc'));

    execFileSync('npm', ['run', 'prepare', '--silent'], { cwd: clone, stdio: 'pipe' });
    const version = execFileSync(process.execPath, [path.join(clone, 'dist', 'cli', 'main.js'), '--version'], {
      encoding: 'utf8',
    });
    expect(version.trim()).toBe(manifest.version);
    expect(existsSync(path.join(clone, 'dist', 'bench'))).toBe(false);

    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: clone, encoding: 'utf8' }),
    ) as { files: { path: string }[] }[];
    const files = packed!.files.map((file) => file.path);
    for (const shipped of [
      'LICENSE',
      'docs/DATA.md',
      'README.md',
      'dist/cli/main.js',
      'sql/schema/010_pipeline_runs.sql',
    ])
      expect(files, shipped).toContain(shipped);
    expect(files.filter((file) => /^dist\/(bench|scripts)\/|tsbuildinfo/.test(file))).toEqual([]);
    expect(readFileSync(path.join(clone, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });
});
