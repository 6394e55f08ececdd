import { describe, expect, it } from 'vitest';
import { describeFound, reason } from '../../src/transform/types.js';

describe('a found value in a reason', () => {
  it('shows characters that reorder or hide text as escapes, so a bad value cannot disguise its report line', () => {
    // U+202E would display the rest of the line right to left; U+200B and U+2028 do not show as themselves.
    expect(describeFound('evil\u202Etxt.exe')).toBe('"evil\\u202etxt.exe"');
    expect(describeFound('a\u200Bb\u2028c\u2066d\uFEFF')).toBe('"a\\u200bb\\u2028c\\u2066d\\ufeff"');
    expect(reason('isGuest', 'a boolean', 'no\u202E').message).toBe('isGuest: expected a boolean, found "no\\u202e"');
  });

  it('leaves other text as JSON writes it, and still cuts long values', () => {
    expect(describeFound('héllo 🎉 "q"')).toBe('"héllo 🎉 \\"q\\""');
    expect(describeFound('\u202E'.repeat(100))).toBe(`"${'\\u202e'.repeat(60)}"… (100 characters)`);
    // Never half of an emoji at the cut; the length in the unit limits count, and in characters.
    expect(describeFound(`a${'😀'.repeat(40)}`)).toBe(`"a${'😀'.repeat(29)}"… (81 UTF-16 code units, 41 characters)`);
  });
});
