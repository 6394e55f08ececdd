import { LIMITS } from '../wire/imports.js';

/**
 * Names the platform accepts, shared by the Slack converter and the mapping language (`asName`, `unique`).
 */

/**
 * A name the platform accepts, derived from a source handle or channel name. The API gives no character
 * rules, only length (LIMITS.nameLength), so the form chosen is the one every chat platform accepts:
 * lower-case letters of any script, digits, `.`, `_` and `-`. Slack's own handles and channel names
 * already have this form and pass through unchanged. Text is NFC-normalised first, so that a name typed
 * with combining marks and one typed precomposed are the same name.
 */
export function makeValidName(raw: string | undefined, fallback: string, maxLength: number = LIMITS.nameLength): string {
  const cleaned = (raw ?? '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}._-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  const name = cleaned === '' ? fallback : cleaned;
  return truncateCodePoints(name, maxLength);
}

function truncateCodePoints(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let out = '';
  for (const ch of text) {
    if (out.length + ch.length > maxLength) break;
    out += ch;
  }
  return out;
}

/**
 * Hands out unique names in the order asked: the first `bob` stays `bob`, the next becomes `bob-2`, and
 * so on (compared case-insensitively). Deterministic as long as the order of requests is.
 */
export interface NameAllocator {
  allocate(base: string): string;
  has(name: string): boolean;
}

export function createNameAllocator(maxLength: number = LIMITS.nameLength): NameAllocator {
  const taken = new Set<string>();
  return {
    has: (name) => taken.has(name.toLowerCase()),
    allocate(base) {
      let candidate = base;
      for (let n = 2; taken.has(candidate.toLowerCase()); n++) {
        const suffix = `-${n}`;
        candidate = truncateCodePoints(base, maxLength - suffix.length) + suffix;
      }
      taken.add(candidate.toLowerCase());
      return candidate;
    },
  };
}
