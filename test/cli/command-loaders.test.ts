import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES, createProgramFor } from '../../src/cli/command-loaders.js';
import { commandNameOf } from '../../src/cli/command-name.js';
import { createProgram } from '../../src/cli/program.js';
import { createLogger } from '../../src/shared/logger.js';

const ctx = () => ({ version: '0.0.0', stdout: new PassThrough(), stderr: new PassThrough(), env: {}, logger: createLogger({ level: 'silent' }), setExitCode: () => {}, signal: new AbortController().signal });

/** A command's whole tree: names, arguments and option flags, subcommands included. */
function shape(command: Command): unknown {
  return {
    name: command.name(),
    arguments: command.registeredArguments.map((a) => a.name()),
    options: command.options.map((o) => o.flags),
    commands: command.commands.map(shape),
  };
}

const topLevel = (program: Command) => program.commands.map((c) => c.name()).filter((n) => n !== 'help');

describe('the CLI loads only the command it runs', () => {
  it('has a loader for every top-level command, and for nothing else', () => {
    expect([...COMMAND_MODULES.keys()].sort()).toEqual(topLevel(createProgram(ctx())).sort());
  });

  it('gives each named command exactly as the whole program has it', async () => {
    const whole = createProgram(ctx());
    for (const name of COMMAND_MODULES.keys()) {
      const program = await createProgramFor(ctx(), ['node', 'chatport', '--debug', name, '--json']);
      expect(topLevel(program)).toContain(name);
      // `functions` and `runtime` share a file, so each brings the other; no other command comes along.
      expect(topLevel(program).length).toBe(name === 'functions' || name === 'runtime' ? 2 : 1);
      for (const command of program.commands) expect(shape(command)).toEqual(shape(whole.commands.find((c) => c.name() === command.name())!));
    }
  });

  it('builds every command when the command line names none of them: no command, help, a misspelt one, only options', async () => {
    const all = topLevel(createProgram(ctx()));
    for (const argv of [[], ['help', 'import'], ['imprt', 'x.yaml'], ['--version'], ['--debug']]) {
      const program = await createProgramFor(ctx(), ['node', 'chatport', ...argv]);
      expect(topLevel(program)).toEqual(all);
    }
  });

  it('takes the first word that is not an option as the command', () => {
    expect(commandNameOf(['node', 'chatport', '--debug', 'export', 'all', '--to', 'out'])).toBe('export');
    expect(commandNameOf(['node', 'chatport', '-V'])).toBeUndefined();
  });
});
