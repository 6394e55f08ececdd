import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './paths.js';

/** The sandbox in its own process (so it never shares CPU accounting with what is measured). */
export async function startSandboxProcess(extraArgs: string[] = []): Promise<{ url: string; clientId: string; clientSecret: string; child: ChildProcess; stop(): Promise<void> }> {
  const clientId = 'bench';
  const clientSecret = 'bench-secret-0001';
  const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0', '--client-id', clientId, '--client-secret', clientSecret, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CHATPORT_LOG_LEVEL: 'warn' },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+/);
      if (m) resolve(m[0]);
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited ${code}: ${out}`)));
  });
  return {
    url, clientId, clientSecret, child,
    stop: () => new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}
