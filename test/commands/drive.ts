/**
 * Drives pinrecon's real commander program in-process (issue 27 item 5), the jobs never run: every command's action
 * is replaced by one that keeps the options and arguments commander gave it, so a test checks a command's option
 * wiring (names, defaults, variadic arguments, required options, help) and then its pure parse function, without
 * spawning the CLI. Usage errors come back as commander's error with what it would have written.
 */
import { type Command, CommanderError } from 'commander';
import { buildProgram, commandsFor } from '../../cli/program.js';

export interface Driven<O = Record<string, unknown>> {
  /** The options as the command's action sees them (`optsWithGlobals`), typed as the test says. */
  options: O;
  /** The positional arguments, in order. */
  args: unknown[];
  /** The command path that ran, e.g. "findings decide". */
  command: string;
}

export interface Refused {
  error: CommanderError;
  /** What commander wrote to stderr (usage errors) and to stdout (help, version). */
  stderr: string;
  stdout: string;
}

/** Parses `pinrecon ...argv` with the real program; resolves what the action would have got, or the usage error. */
export async function drive(argv: string[]): Promise<Driven | Refused> {
  const program = buildProgram(await commandsFor(['node', 'pinrecon', ...argv]));
  let driven: Driven | undefined;
  let stderr = '';
  let stdout = '';
  const visit = (command: Command, names: string[]) => {
    command.configureOutput({ writeErr: (text) => void (stderr += text), writeOut: (text) => void (stdout += text) });
    for (const sub of command.commands) visit(sub, [...names, sub.name()]);
    if (command.commands.length === 0 && command !== program)
      command.action((...given: unknown[]) => {
        const self = given[given.length - 1] as Command;
        driven = { options: self.optsWithGlobals(), args: given.slice(0, -2), command: names.join(' ') };
      });
  };
  visit(program, []);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return { error, stderr, stdout };
    throw error;
  }
  if (!driven) throw new Error(`pinrecon ${argv.join(' ')} reached no command`);
  return driven;
}

/** The action's options and arguments; fails the test with commander's message when it refused the line. */
export async function driven<O = Record<string, unknown>>(argv: string[]): Promise<Driven<O>> {
  const result = await drive(argv);
  if ('error' in result) throw new Error(`pinrecon ${argv.join(' ')} was refused: ${result.stderr}`);
  return result as Driven<O>;
}

/** The usage error; fails the test when commander accepted the line. */
export async function refused(argv: string[]): Promise<Refused> {
  const result = await drive(argv);
  if (!('error' in result)) throw new Error(`pinrecon ${argv.join(' ')} was accepted`);
  return result;
}
