/**
 * A TCP proxy on 127.0.0.1 in front of a real server that breaks chosen responses midway: for the first
 * `cuts` GET requests whose path contains `pathPart`, it forwards the response headers and `bodyBytes`
 * bytes of the body, then destroys the connection. Everything else passes through byte for byte.
 * It records each request head so tests can check what the client asked for (e.g. a Range header).
 * `stripHeaders` (lower case) are dropped from every request, as a store or gateway that ignores them would
 * (HTTP lets a server answer a range request with the whole body, 200; some stores ignore If-Match).
 * `padPuts` is put before the body of each PUT whose path contains `pathPart` (its Content-Length raised
 * to match): a store that keeps other bytes than it was sent, as s3rver kept aws-chunked framing.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface CuttingProxy {
  endpoint: string;
  /** Request heads (request line + headers) in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startCuttingProxy(upstreamPort: number, rule: { pathPart: string; bodyBytes: number; cuts: number; stripHeaders?: string[]; padPuts?: string }): Promise<CuttingProxy> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let cutsLeft = rule.cuts;

  const server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    const forget = () => {
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', forget);
    // When set, the current response is cut after its header and this many body bytes.
    let cutAfter: number | undefined;
    let inBody = false;
    let bodySent = 0;
    let head = Buffer.alloc(0);

    client.on('data', (chunk: Buffer) => {
      for (const name of rule.stripHeaders ?? []) chunk = Buffer.from(chunk.toString('latin1').replace(new RegExp(`\r\n${name}: [^\r]*`, 'i'), ''), 'latin1');
      const text = chunk.toString('latin1');
      if (/^[A-Z]+ \//.test(text)) {
        const end = text.indexOf('\r\n\r\n');
        const requestHead = end >= 0 ? text.slice(0, end) : text;
        requests.push(requestHead);
        if (rule.padPuts && end >= 0 && requestHead.startsWith('PUT ') && requestHead.split('\r\n')[0]!.includes(rule.pathPart)) chunk = padded(chunk, end, rule.padPuts);
        if (cutsLeft > 0 && requestHead.startsWith('GET ') && requestHead.split('\r\n')[0]!.includes(rule.pathPart)) {
          cutsLeft--;
          cutAfter = rule.bodyBytes;
          inBody = false;
          bodySent = 0;
          head = Buffer.alloc(0);
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cutAfter === undefined) {
        client.write(chunk);
        return;
      }
      let offset = 0;
      if (!inBody) {
        // Hold the response until its header is complete, so the body bytes can be counted exactly.
        head = Buffer.concat([head, chunk]);
        const at = head.indexOf('\r\n\r\n');
        if (at < 0) return;
        inBody = true;
        chunk = head;
        offset = at + 4;
      }
      const room = cutAfter - bodySent;
      if (chunk.length - offset >= room) {
        cutAfter = undefined;
        client.write(chunk.subarray(0, offset + room), () => {
          client.destroy();
          upstream.destroy();
        });
        return;
      }
      bodySent += chunk.length - offset;
      client.write(chunk);
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** `chunk`, a request starting with its head (ending at `headEnd`), with `pad` before its body. */
function padded(chunk: Buffer, headEnd: number, pad: string): Buffer {
  const head = chunk.subarray(0, headEnd).toString('latin1').replace(/\r\ncontent-length: (\d+)/i, (_, n: string) => `\r\ncontent-length: ${Number(n) + Buffer.byteLength(pad)}`);
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n${pad}`, 'latin1'), chunk.subarray(headEnd + 4)]);
}
