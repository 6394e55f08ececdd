import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { createLogger } from '../../src/shared/logger.js';
import { runCli } from '../import/support.js';

/** The program as the CLI builds it, writing to a buffer. */
function program(): { program: Command; output: () => string } {
  let text = '';
  const stdout = new PassThrough();
  stdout.on('data', (d: Buffer) => (text += d.toString()));
  const ctx = { version: '0.0.0', stdout, stderr: stdout, env: {}, logger: createLogger({ level: 'silent' }), setExitCode: () => {}, signal: new AbortController().signal };
  return { program: createProgram(ctx), output: () => text };
}

/** Every command path: '' (the program), 'import', 'jobs', 'jobs list', … */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return [prefix, ...command.commands.flatMap((sub) => commandPaths(sub, [...prefix, sub.name()]))];
}

/** The help a command prints (commander's --help with the text added after it). */
function helpOf(path: string[]): string {
  const { program: root, output } = program();
  let command: Command = root;
  for (const name of path) command = command.commands.find((c) => c.name() === name)!;
  command.outputHelp();
  return output();
}

describe('--help', () => {
  const paths = commandPaths(program().program).filter((p) => p.at(-1) !== 'help');

  it('covers every command', () => expect(paths.map((p) => p.join(' '))).toEqual(expect.arrayContaining(['', 'import', 'sandbox', 'jobs wait', 'migrate slack', 'export', 'schema'])));

  for (const path of paths)
    it(`chatport ${path.join(' ')} --help ends with examples of that command`, () => {
      const help = helpOf(path);
      const examples = help.slice(help.indexOf('\nExamples:\n'));
      expect(help).toContain('\nExamples:\n');
      const lines = examples.split('\n').slice(2).filter((l) => /^\s{2}chatport /.test(l));
      expect(lines.length).toBeGreaterThanOrEqual(2);
      expect(lines.some((l) => l.trimStart().startsWith(['chatport', ...path].join(' ')))).toBe(true);
    });

  it('the real CLI prints them too', async () => {
    const result = await runCli(['import', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nExamples:\n {2}chatport import pipelines\/csv-example\.yaml/);
  });
});
