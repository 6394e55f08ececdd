/**
 * Messages of one channel as compact columns, so that ten million of them fit in a few hundred MB:
 * a token (author, type, body length: what the analytics export also carries) plus a reference back to
 * the record (the source ordinal, or the platform id). Names and types are interned to small numbers.
 */
import { grownTo } from '../../shared/typed-arrays.js';

/** Strings ↔ small numbers; 0 is the empty string (a message without author). */
export class Interner {
  private readonly ids = new Map<string, number>([['', 0]]);
  private readonly names: string[] = [''];

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  name(id: number): string {
    return this.names[id] ?? '';
  }

  /** `from`'s id answers to `to` from now on (a user renamed on the platform); kept when `to` has an id already. */
  rename(from: string, to: string): void {
    const id = this.ids.get(from);
    if (id === undefined || this.ids.has(to)) return;
    this.ids.delete(from);
    this.ids.set(to, id);
    this.names[id] = to;
  }

  has(name: string): boolean {
    return this.ids.has(name);
  }

  /** How many names, the empty one included: ids run from 0 to size - 1. */
  get size(): number {
    return this.names.length;
  }
}

export interface Token {
  author: number;
  type: number;
  length: number;
}

export abstract class TokenColumns {
  count = 0;
  author = new Uint32Array(16);
  type = new Uint8Array(16);
  length = new Uint32Array(16);

  protected grow(): void {
    const size = this.author.length * 2;
    this.author = grownTo(this.author, size);
    this.type = grownTo(this.type, size);
    this.length = grownTo(this.length, size);
    this.growExtra(size);
  }

  protected abstract growExtra(size: number): void;

  protected pushToken(t: Token): number {
    if (this.count === this.author.length) this.grow();
    const i = this.count++;
    this.author[i] = t.author;
    this.type[i] = t.type;
    this.length[i] = t.length;
    return i;
  }

  token(i: number): Token {
    return { author: this.author[i]!, type: this.type[i]!, length: this.length[i]! };
  }
}

/** What the source says one channel holds, in source order; `ordinal` numbers the stage's expected messages. */
export class ExpectedMessages extends TokenColumns {
  ordinal = new Uint32Array(16);

  protected growExtra(size: number): void {
    this.ordinal = grownTo(this.ordinal, size);
  }

  push(t: Token, ordinal: number): number {
    const i = this.pushToken(t);
    this.ordinal[i] = ordinal;
    return i;
  }
}

/** What the platform holds in one channel, in id order; ids are int64 (kept exact), `edited` when lastEditedTime is set. */
export class PlatformMessages extends TokenColumns {
  id = new BigInt64Array(16);
  edited = new Uint8Array(16);

  protected growExtra(size: number): void {
    this.id = grownTo(this.id, size);
    this.edited = grownTo(this.edited, size);
  }

  push(t: Token, id: bigint, edited: boolean): number {
    const i = this.pushToken(t);
    this.id[i] = id;
    this.edited[i] = edited ? 1 : 0;
    return i;
  }

  /** Drops the rows of these ids, keeping the order of the rest (replies the export lists as channel rows). */
  remove(ids: ReadonlySet<bigint>): void {
    let to = 0;
    for (let from = 0; from < this.count; from++) {
      if (ids.has(this.id[from]!)) continue;
      this.author[to] = this.author[from]!;
      this.type[to] = this.type[from]!;
      this.length[to] = this.length[from]!;
      this.id[to] = this.id[from]!;
      this.edited[to++] = this.edited[from]!;
    }
    this.count = to;
  }

  /** Puts the rows in id order (an export that is not ordered by id); a no-op when they are. */
  sortById(): void {
    let sorted = true;
    for (let i = 1; i < this.count && sorted; i++) sorted = this.id[i - 1]! < this.id[i]!;
    if (sorted) return;
    const order = Array.from({ length: this.count }, (_, i) => i).sort((a, b) => (this.id[a]! < this.id[b]! ? -1 : this.id[a]! > this.id[b]! ? 1 : 0));
    const author = this.author.slice(0, this.count);
    const type = this.type.slice(0, this.count);
    const length = this.length.slice(0, this.count);
    const id = this.id.slice(0, this.count);
    const edited = this.edited.slice(0, this.count);
    order.forEach((from, to) => {
      this.author[to] = author[from]!;
      this.type[to] = type[from]!;
      this.length[to] = length[from]!;
      this.id[to] = id[from]!;
      this.edited[to] = edited[from]!;
    });
  }
}

export function sameToken(a: TokenColumns, i: number, b: TokenColumns, j: number): boolean {
  return a.author[i] === b.author[j] && a.type[i] === b.type[j] && a.length[i] === b.length[j];
}
