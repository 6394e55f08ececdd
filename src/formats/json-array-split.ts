/**
 * Cuts the text of one JSON array, arriving in pieces, into the texts of its elements, without building
 * the array: each element is then parsed alone with JSON.parse (native, and several times faster than a
 * token-by-token streaming parser). Only the array's own syntax is checked here (the opening bracket,
 * commas between elements, the closing bracket, nothing but whitespace after it); each element's inside
 * is checked by JSON.parse. Strings are skipped with indexOf, so the cost per character is small.
 */
export class JsonArraySyntaxError extends Error {
  /** The elements the failing push completed before the error: they are whole, and read before it. */
  completed: string[] = [];
}

const enum Where {
  /** Before the `[`. */
  Start,
  /** After `[` or an element's `,`: an element (or, right after `[`, the `]`) comes next. */
  ElementNext,
  /** Inside an element. */
  Element,
  /** After an element: `,` or `]` comes next. */
  AfterElement,
  /** After the closing `]`. */
  End,
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export class JsonArraySplitter {
  private text = '';
  /** Where scanning resumes in `text`. */
  private at = 0;
  /** Start of the current element in `text`. */
  private elementStart = 0;
  private where = Where.Start;
  private depth = 0;
  private inString = false;
  private afterOpen = false;
  /** Characters consumed before `text` began (for error positions). */
  private consumed = 0;

  /** Text pushed inside an unfinished element and not scanned yet (see push). */
  private held: string[] = [];
  private heldLength = 0;

  /** Adds text; returns the texts of the elements it completed. */
  push(piece: string): string[] {
    if (this.where === Where.Element) {
      // The unfinished element's text is copied whole with each scan: waiting until it has doubled keeps
      // an element of n characters at O(n) copying, not n² (a buffer's worth per push).
      this.held.push(piece);
      this.heldLength += piece.length;
      if (this.heldLength < this.text.length - this.elementStart) return [];
    }
    return this.scanHeld(piece);
  }

  /** The input has ended: returns the elements not returned yet; throws unless the array was closed. */
  end(): string[] {
    const out = this.held.length > 0 ? this.scanHeld('') : [];
    if (this.where === Where.End) return out;
    if (this.where === Where.Start) throw this.error('the input holds no JSON array');
    throw Object.assign(this.error('the input ends before the array is closed'), { completed: out });
  }

  private scanHeld(piece: string): string[] {
    if (this.where === Where.Element) {
      const held = this.held.join('');
      this.held = [];
      this.heldLength = 0;
      this.consumed += this.elementStart;
      this.text = this.text.slice(this.elementStart) + held;
      this.at -= this.elementStart;
      this.elementStart = 0;
    } else {
      this.text = piece;
      this.at = 0;
    }
    const out: string[] = [];
    try {
      this.scan(out);
    } catch (error) {
      if (error instanceof JsonArraySyntaxError) error.completed = out;
      throw error;
    }
    if (this.where !== Where.Element) {
      this.consumed += this.text.length;
      this.text = '';
      this.at = 0;
    }
    return out;
  }

  private scan(out: string[]): void {
    const text = this.text;
    let i = this.at;
    while (i < text.length) {
      if (this.where === Where.Element) {
        i = this.scanElement(text, i, out);
        continue;
      }
      const c = text.charCodeAt(i);
      if (isSpace(c) || (c === 0xfeff && this.where === Where.Start && this.consumed + i === 0)) {
        i++;
        continue;
      }
      switch (this.where) {
        case Where.Start:
          if (c !== 0x5b) throw this.error('expected a JSON array (`[`)', i);
          this.where = Where.ElementNext;
          this.afterOpen = true;
          i++;
          break;
        case Where.ElementNext:
          if (c === 0x5d && this.afterOpen) {
            this.where = Where.End;
            i++;
            break;
          }
          if (c === 0x5d || c === 0x2c) throw this.error(`expected an element, found \`${String.fromCharCode(c)}\``, i);
          this.where = Where.Element;
          this.elementStart = i;
          this.depth = 0;
          this.inString = false;
          break;
        case Where.AfterElement:
          if (c === 0x2c) this.where = Where.ElementNext;
          else if (c === 0x5d) this.where = Where.End;
          else throw this.error(`expected \`,\` or \`]\` after an element, found \`${String.fromCharCode(c)}\``, i);
          this.afterOpen = false;
          i++;
          break;
        case Where.End:
          throw this.error('text after the end of the array', i);
      }
    }
    this.at = i;
  }

  /** Scans inside an element from `i`; returns where scanning stopped (at its end, or the text's end). */
  private scanElement(text: string, i: number, out: string[]): number {
    while (i < text.length) {
      if (this.inString) {
        const quote = text.indexOf('"', i);
        if (quote === -1) return text.length;
        let backslashes = 0;
        for (let b = quote - 1; b >= 0 && text.charCodeAt(b) === 0x5c; b--) backslashes++;
        i = quote + 1;
        if (backslashes % 2 === 0) this.inString = false;
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === 0x22) this.inString = true;
      else if (c === 0x7b || c === 0x5b) this.depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (this.depth === 0) return this.finishElement(text, i, out);
        this.depth--;
        if (this.depth === 0) return this.finishElement(text, i + 1, out);
      } else if (c === 0x2c && this.depth === 0) return this.finishElement(text, i, out);
      else if (isSpace(c) && this.depth === 0) return this.finishElement(text, i, out);
      i++;
    }
    return i;
  }

  private finishElement(text: string, end: number, out: string[]): number {
    out.push(text.slice(this.elementStart, end));
    this.where = Where.AfterElement;
    return end;
  }

  private error(message: string, at = this.at): JsonArraySyntaxError {
    return new JsonArraySyntaxError(`${message} at character ${this.consumed + at}`);
  }
}
