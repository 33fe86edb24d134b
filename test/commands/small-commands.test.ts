/**
 * The commands without an option to check (catalog, keys protect, config show) and the options every command takes,
 * in-process (issue 27 item 5): their parse functions and their commander wiring.
 */
import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../cli/commands/catalog.js';
import { parseConfigShow } from '../../cli/commands/config.js';
import { parseKeysProtect } from '../../cli/commands/keys.js';
import { parseGlobalOptions } from '../../cli/context.js';
import { UsageError } from '../../core/errors.js';
import { driven, refused } from './drive.js';

describe('catalog, keys protect, config show', () => {
  it('take their flags from commander', async () => {
    expect(parseCatalog((await driven(['catalog'])).options)).toEqual({});
    expect(parseKeysProtect((await driven(['keys', 'protect'])).options)).toEqual({ dryRun: false });
    expect(parseKeysProtect((await driven(['keys', 'protect', '--dry-run'])).options)).toEqual({ dryRun: true });
    expect(parseConfigShow((await driven(['config', 'show'])).options)).toEqual({ check: false });
    expect(parseConfigShow((await driven(['config', 'show', '--check'])).options)).toEqual({ check: true });
  });
});

describe('the options every command takes', () => {
  it('--log-format is text unless json; --json as given', async () => {
    expect(parseGlobalOptions({})).toEqual({ logFormat: 'text', json: false });
    const { options } = await driven(['config', 'show', '--log-format', 'json', '--json', '--config', 'c.json']);
    expect(options).toMatchObject({ config: 'c.json' });
    expect(parseGlobalOptions(options)).toEqual({ logFormat: 'json', json: true });
  });

  it('refuses a --log-format other than text or json', () => {
    expect(() => parseGlobalOptions({ logFormat: 'xml' })).toThrow(UsageError);
    expect(() => parseGlobalOptions({ logFormat: 'xml' })).toThrow('--log-format must be "text" or "json", got "xml".');
  });

  it('an unknown option is a usage error naming it', async () => {
    const usage = await refused(['config', 'show', '--no-such-option']);
    expect(usage.error.code).toBe('commander.unknownOption');
    expect(usage.stderr).toContain("error: unknown option '--no-such-option'");
  });
});
