/** `pinrecon identity create`'s command line in-process (issue 27 item 5): its parse function and wiring. */
import { describe, expect, it } from 'vitest';
import { type CreateOptions, parseIdentityCreate } from '../../cli/commands/identity.js';
import { UsageError } from '../../core/errors.js';
import { driven, refused } from './drive.js';

describe('parseIdentityCreate', () => {
  it('takes the name, the file and the roles; no role given leaves the default to the people entry', () => {
    expect(parseIdentityCreate({ name: 'Ana Lima', out: 'ana.pem' })).toEqual({ name: 'Ana Lima', out: 'ana.pem' });
    expect(parseIdentityCreate({ name: 'Ana', out: 'a.pem', role: ['preparer', 'signer'] }).roles).toEqual([
      'preparer',
      'signer',
    ]);
  });

  it('refuses a role that is not one, naming the roles', () => {
    const parse = () => parseIdentityCreate({ name: 'Ana', out: 'a.pem', role: ['preparer', 'boss'] });
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(/^--role must be among preparer, .*, got "boss"\.$/);
  });
});

describe('pinrecon identity create (commander, in-process)', () => {
  it('takes several roles after --role; --name and --out are required', async () => {
    const { options } = await driven<CreateOptions>([
      ...['identity', 'create', '--name', 'Ana Lima', '--out', 'ana.pem', '--role', 'preparer', 'signer'],
    ]);
    expect(parseIdentityCreate(options)).toEqual({ name: 'Ana Lima', out: 'ana.pem', roles: ['preparer', 'signer'] });
    expect((await refused(['identity', 'create', '--out', 'a.pem'])).stderr).toContain(
      "required option '--name <name>' not specified",
    );
    expect((await refused(['identity', 'create', '--name', 'Ana'])).stderr).toContain(
      "required option '--out <file>' not specified",
    );
  });
});
