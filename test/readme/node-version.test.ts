import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readme } from './readme.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };

describe('the Node version README states', () => {
  const text = readme().replace(/\s+/g, ' ');

  it("is package.json's engines, and what the locked runtime dependencies require", () => {
    const least = /Node (\d+\.\d+) or later runs it/.exec(text)?.[1];
    expect(pkg.engines.node).toBe(`>=${least}`);
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string }; dev?: boolean }> };
    // Every runtime dependency's own floor (">=a.b.c") is at or below ours.
    const [major, minor] = least!.split('.').map(Number) as [number, number];
    for (const [name, entry] of Object.entries(lock.packages)) {
      const floor = /^>=\s*(\d+)(?:\.(\d+))?/.exec(entry.engines?.node ?? '');
      if (!name || entry.dev || !floor) continue;
      const [fMajor, fMinor] = [Number(floor[1]), Number(floor[2] ?? 0)];
      expect(fMajor < major || (fMajor === major && fMinor <= minor), `${name} needs ${entry.engines!.node}`).toBe(true);
    }
  });

  it("names the image's Node as the Dockerfile has it", () => {
    const image = /^FROM node:(\d+)/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
    expect(text).toContain(`the container image runs Node ${image}`);
  });
});
