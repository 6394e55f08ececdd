import { isAscii } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import { FormatError } from './errors.js';
import { Utf8Marking, markText } from '../shared/utf8-marks.js';

/**
 * Text encodings a source may declare. `utf-16` takes the byte order from the file's byte order mark.
 * Whatever the declared encoding, the parsers read valid UTF-8: TextNormalizer below turns the file's bytes
 * into it, and marks each byte the encoding cannot read (see src/shared/utf8-marks.ts) so that the record holding
 * it is rejected instead of carrying U+FFFD to the platform.
 */
export const SOURCE_ENCODINGS = ['utf-8', 'latin1', 'windows-1252', 'utf-16le', 'utf-16be', 'utf-16'] as const;
export type SourceEncoding = (typeof SOURCE_ENCODINGS)[number];

/** Other names people write for them (Node's and IANA's). `ascii` is read as UTF-8, of which it is a part. */
export const ENCODING_ALIASES: Readonly<Record<string, SourceEncoding>> = {
  utf8: 'utf-8',
  ascii: 'utf-8',
  'iso-8859-1': 'latin1',
  cp1252: 'windows-1252',
  utf16le: 'utf-16le',
  utf16be: 'utf-16be',
  utf16: 'utf-16',
};

export function normalizeEncoding(name: string): SourceEncoding | undefined {
  const lower = name.toLowerCase();
  return (SOURCE_ENCODINGS as readonly string[]).includes(lower) ? (lower as SourceEncoding) : ENCODING_ALIASES[lower];
}

/** windows-1252 at 0x80–0x9F (elsewhere it is latin1); 0 where the code page defines no character. */
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
  0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];

/** String.prototype.isWellFormed (Node 20; TypeScript's lib here predates it). */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** A lone surrogate (UTF-16 that is not well formed). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Bytes in the declared encoding → UTF-8 bytes, byte order marks removed. The hot path (UTF-8 input) is one
 * native validity check per read (`isUtf8`) and passes the bytes on as they are; only a read that fails it
 * is walked byte by byte to mark the unreadable bytes. `invalidBytes` counts the marks made so far.
 *
 * Without a declared encoding (UTF-8, the default), a UTF-16 byte order mark switches to UTF-16: such a
 * file cannot be UTF-8 (0xFF and 0xFE never occur in UTF-8), and spreadsheet programs write it. Under a
 * declared latin1 or windows-1252, a byte order mark (UTF-8 or UTF-16) is honoured too.
 */
export class TextNormalizer extends Transform {
  invalidBytes = 0;
  private encoding: SourceEncoding;
  private head: Buffer | undefined = Buffer.alloc(0);
  private held: Buffer | undefined;
  private readonly utf8 = new Utf8Marking();

  constructor(
    encoding: SourceEncoding,
    private readonly file: string,
  ) {
    super();
    this.encoding = encoding;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      let data = chunk;
      if (this.head !== undefined) {
        // The first bytes wait until a byte order mark can be told (3 bytes, or the end of the file).
        this.head = Buffer.concat([this.head, chunk]);
        if (this.head.length < 3) return callback();
        data = this.takeByteOrderMark(this.head);
        this.head = undefined;
      }
      this.convert(data, false);
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      if (this.head !== undefined) this.convert(this.takeByteOrderMark(this.head), true);
      else this.convert(Buffer.alloc(0), true);
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  /** The encoding read (a UTF-16 byte order mark may have decided it), as messages name it. */
  get encodingName(): string {
    return this.encoding.startsWith('utf') ? this.encoding.toUpperCase() : this.encoding;
  }

  private takeByteOrderMark(b: Buffer): Buffer {
    const utf8Bom = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
    const le = b[0] === 0xff && b[1] === 0xfe;
    const be = b[0] === 0xfe && b[1] === 0xff;
    // A UTF-8 mark read as latin1 or windows-1252 would be "ï»¿" before the first field, and every accented
    // letter after it two letters ("RenÃ©e"), imported without a reject: the mark settles it (Excel's "CSV
    // UTF-8" writes it into a folder of older windows-1252 exports). A UTF-16 mark ("ÿþ", "þÿ": no header
    // starts so) likewise, or every other character read would be a NUL.
    if ((utf8Bom || le || be) && (this.encoding === 'latin1' || this.encoding === 'windows-1252')) this.encoding = 'utf-8';
    if (this.encoding === 'utf-8') {
      if (utf8Bom) return b.subarray(3);
      if (le || be) this.encoding = le ? 'utf-16le' : 'utf-16be';
    }
    if (this.encoding === 'utf-16') {
      if (!le && !be)
        throw new FormatError(`${this.file}: the source declares encoding utf-16 but the file has no byte order mark; declare utf-16le or utf-16be`, { file: this.file });
      this.encoding = le ? 'utf-16le' : 'utf-16be';
    }
    if ((this.encoding === 'utf-16le' && le) || (this.encoding === 'utf-16be' && be)) return b.subarray(2);
    return b;
  }

  private convert(chunk: Buffer, last: boolean): void {
    switch (this.encoding) {
      case 'latin1':
        return this.pushText(isAscii(chunk) ? undefined : chunk.toString('latin1'), chunk);
      case 'windows-1252':
        return this.pushText(isAscii(chunk) ? undefined : this.decodeCp1252(chunk), chunk);
      case 'utf-16le':
      case 'utf-16be':
        return this.convertUtf16(chunk, last);
      default:
        return this.convertUtf8(chunk, last);
    }
  }

  private pushText(text: string | undefined, ascii: Buffer): void {
    if (text === undefined) {
      if (ascii.length > 0) this.push(ascii);
    } else this.push(Buffer.from(text, 'utf8'));
  }

  private convertUtf8(chunk: Buffer, last: boolean): void {
    const marked = this.utf8.marked;
    const bytes = this.utf8.take(chunk, last);
    this.invalidBytes += this.utf8.marked - marked;
    if (bytes.length > 0) this.push(bytes);
  }

  private decodeCp1252(chunk: Buffer): string {
    let out = '';
    let runStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b < 0x80 || b > 0x9f) continue;
      const cp = CP1252_HIGH[b - 0x80]!;
      out += chunk.toString('latin1', runStart, i);
      if (cp === 0) {
        this.invalidBytes++;
        out += markText(b);
      } else out += String.fromCharCode(cp);
      runStart = i + 1;
    }
    return out + chunk.toString('latin1', runStart);
  }

  private convertUtf16(chunk: Buffer, last: boolean): void {
    const data = this.held ? Buffer.concat([this.held, chunk]) : chunk;
    let end = data.length - (data.length % 2);
    // A high surrogate at the end may pair with the next read's first unit.
    if (!last && end >= 2) {
      const unit = this.encoding === 'utf-16le' ? data.readUInt16LE(end - 2) : data.readUInt16BE(end - 2);
      if (unit >= 0xd800 && unit <= 0xdbff) end -= 2;
    }
    if (last) end = data.length - (data.length % 2);
    const odd = last && data.length % 2 === 1 ? data[data.length - 1] : undefined;
    this.held = last || end === data.length ? undefined : Buffer.from(data.subarray(end));
    let units = data.subarray(0, end);
    if (this.encoding === 'utf-16be') units = Buffer.from(units).swap16();
    let text = units.toString('utf16le');
    if (!isWellFormed(text))
      text = text.replace(LONE_SURROGATE, (unit) => {
        const code = unit.charCodeAt(0);
        this.invalidBytes += 2;
        // The unit's two bytes, in the file's order.
        const [first, second] = this.encoding === 'utf-16le' ? [code & 0xff, code >> 8] : [code >> 8, code & 0xff];
        return markText(first) + markText(second);
      });
    if (odd !== undefined) {
      this.invalidBytes++;
      text += markText(odd);
    }
    if (text.length > 0) this.push(Buffer.from(text, 'utf8'));
  }
}
