import { describe, expect, it } from 'vitest';
import { interpolate } from '../../src/config/index.js';

describe('interpolate', () => {
  const env = { HOST: 'example.org', EMPTY: '', PORT: '8080' };

  it('replaces ${NAME} and applies ${NAME:-default} when unset or empty', () => {
    expect(interpolate('http://${HOST}:${PORT}/x', env).value).toBe('http://example.org:8080/x');
    expect(interpolate('${EMPTY:-fallback}|${UNSET:-}|${HOST:-no}', env).value).toBe('fallback||example.org');
  });

  it('reports unset variables without default, and keeps literal text', () => {
    const result = interpolate('a ${UNSET} b $HOME $${NOT} c', env);
    expect(result.missing).toEqual(['UNSET']);
    expect(result.value).toBe('a  b $HOME ${NOT} c');
  });

  it('reports broken references', () => {
    expect(interpolate('x ${OPEN', env).problems[0]).toMatch(/no closing/);
    expect(interpolate('${1BAD}', env).problems[0]).toMatch(/not a variable name/);
  });
});
