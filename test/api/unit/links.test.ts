import { describe, expect, it } from 'vitest';
import { resolveLink } from '../../../src/api/hal/links.js';
import { buildApiUrl } from '../../../src/api/core/url.js';

const base = new URL('https://chat.example.com/api/jobs?page=0');

describe('resolveLink (RFC 6570 via url-template)', () => {
  it('expands templated links', () => {
    const links = { user: { href: 'https://chat.example.com/api/users/{id}{?fields*}', templated: true } };
    expect(resolveLink(links, 'user', base, { id: 7, fields: ['a', 'b'] })?.href).toBe('https://chat.example.com/api/users/7?fields=a&fields=b');
  });

  it('drops unset variables and percent-encodes values', () => {
    const links = { search: { href: '/api/messages{?query,username}', templated: true } };
    expect(resolveLink(links, 'search', base, { query: 'a b&c' })?.href).toBe('https://chat.example.com/api/messages?query=a%20b%26c');
  });

  it('resolves relative hrefs against the document address and leaves plain ones alone', () => {
    expect(resolveLink({ next: { href: '?page=1&size=25' } }, 'next', base)?.href).toBe('https://chat.example.com/api/jobs?page=1&size=25');
    expect(resolveLink({ self: { href: 'http://other.test/x?y=1' } }, 'self', base)?.href).toBe('http://other.test/x?y=1');
  });

  it('answers undefined for a missing link', () => {
    expect(resolveLink({}, 'next', base)).toBeUndefined();
    expect(resolveLink(undefined, 'next', base)).toBeUndefined();
  });
});

describe('buildApiUrl', () => {
  it('joins base, prefix and path and repeats array parameters', () => {
    expect(buildApiUrl('http://h/api/', '/v1/', '/channels', { members: ['a', 'b'], type: 'DIRECT', name: undefined }).href).toBe(
      'http://h/api/v1/channels?members=a&members=b&type=DIRECT',
    );
    expect(buildApiUrl('http://h', '', 'jobs/1').href).toBe('http://h/jobs/1');
  });
});
