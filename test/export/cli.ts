/** Runs `chatport …` through the real commander program and the same error → exit code mapping as main.ts. */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { createProgram, mapCommanderError } from '../../src/cli/program.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { createSilentLogger } from '../../src/shared/logger.js';

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  error: unknown;
}

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        chunks.push(chunk.toString());
        done();
      },
    }),
    text: () => chunks.join(''),
  };
}

export async function runCli(args: string[], env: Record<string, string>, signal: AbortSignal = new AbortController().signal, now?: () => number): Promise<CliResult> {
  const out = sink();
  const err = sink();
  let exitCode: number = ExitCode.OK;
  let error: unknown;
  const program = createProgram({
    version: '0.0.0-test',
    stdout: out.stream,
    stderr: err.stream,
    env,
    logger: createSilentLogger(),
    signal,
    ...(now ? { now } : {}),
    setExitCode: (code) => {
      exitCode = code;
    },
  });
  try {
    await program.parseAsync(['node', 'chatport', ...args]);
  } catch (raw) {
    error = mapCommanderError(raw);
    if (error !== null) exitCode = exitCodeFor(error);
  }
  return { exitCode, stdout: out.text(), stderr: err.text(), error };
}

/** A TCP pass-through on 127.0.0.1: a second origin in front of the sandbox. */
export async function startPassThroughProxy(port: string): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), '127.0.0.1');
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
