// Smoke test of the built CLI under a given Node binary (CI runs it with Node 24).
// Plain Node, no test framework: it starts `chatport sandbox`, asks for a token and calls the API.
import { spawn, execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';

const node = process.argv[2] ?? process.execPath;
const cli = new URL('../../dist/cli/main.js', import.meta.url).pathname;

const help = execFileSync(node, [cli, '--help'], { encoding: 'utf8' });
assert.match(help, /Usage: chatport/);

// The main job, end to end, on this runtime.
const demo = execFileSync(node, [cli, 'demo'], { encoding: 'utf8' });
assert.match(demo, /every record accounted for/);

const child = spawn(node, [cli, 'sandbox', '--port', '0', '--seed', 'demo', '--client-id', 'smoke', '--client-secret', 'smoke-secret-1234'], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
try {
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`sandbox did not print its URL:\n${out}`)), 20_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+/);
      if (m) { clearTimeout(timer); resolve(m[0]); }
    });
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}:\n${out}`)));
  });
  const tokenRes = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('smoke:smoke-secret-1234').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  assert.equal(tokenRes.status, 200);
  const { access_token: token } = await tokenRes.json();
  const app = await fetch(`${url}/application`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(app.status, 200);
  assert.ok(app.headers.get('x-api-version'));
  const body = await app.json();
  assert.equal(typeof body.id, 'number');
  console.log(`smoke: ok on ${process.version} (sandbox ${url}, api ${app.headers.get('x-api-version')})`);
} finally {
  child.kill('SIGTERM');
}
