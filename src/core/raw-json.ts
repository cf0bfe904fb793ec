import { AgentToolError } from './errors';
import { MAX_JSON_DEPTH } from './json';

/**
 * Finds the text of the value at a path in JSON text, as it was written (`1.0`, `1e2`,
 * `12345678901234567890`), where `JSON.parse` keeps only the number. Only used to phrase
 * an error, so it may be slow; it returns undefined for text it cannot follow.
 * A repeated key resolves to its last occurrence, as `JSON.parse` does. Text nested
 * deeper than {@link MAX_JSON_DEPTH} is not followed (undefined).
 */
export function rawTextAt(text: string, path: readonly (string | number)[]): string | undefined {
  const scanner = new Scanner(text);
  try {
    return scanner.find(path, 0);
  } catch {
    return undefined;
  }
}

class Scanner {
  pos = 0;
  /** Containers open around the position: the walk is recursive, so it is bounded. */
  private depth = 0;
  constructor(private readonly text: string) {}

  private enter(): void {
    if (++this.depth > MAX_JSON_DEPTH) throw unreadable('too deep');
  }

  find(path: readonly (string | number)[], depth: number): string | undefined {
    this.space();
    if (depth === path.length) {
      const start = this.pos;
      this.skipValue();
      return this.text.slice(start, this.pos);
    }
    const segment = path[depth];
    const c = this.text[this.pos];
    if (c === '{' && typeof segment === 'string') {
      let found: string | undefined;
      // members() enters the object.
      this.members((key) => {
        if (key === segment) found = this.find(path, depth + 1) ?? found;
        else this.skipValue();
      });
      return found;
    }
    if (c === '[' && typeof segment === 'number') {
      let found: string | undefined;
      let index = 0;
      this.enter();
      this.pos++;
      this.space();
      if (this.text[this.pos] === ']') {
        this.pos++;
        this.depth--;
        return undefined;
      }
      for (;;) {
        if (index === segment) found = this.find(path, depth + 1);
        else this.skipValue();
        index++;
        this.space();
        if (this.text[this.pos] === ',') {
          this.pos++;
          continue;
        }
        this.expect(']');
        this.depth--;
        return found;
      }
    }
    // The text does not have the shape the path walks: pass over this value.
    this.skipValue();
    return undefined;
  }

  members(onMember: (key: string) => void): void {
    this.enter();
    this.pos++;
    this.space();
    if (this.text[this.pos] === '}') {
      this.pos++;
      this.depth--;
      return;
    }
    for (;;) {
      this.space();
      const start = this.pos;
      this.skipString();
      const key = JSON.parse(this.text.slice(start, this.pos)) as string;
      this.space();
      this.expect(':');
      this.space();
      onMember(key);
      this.space();
      if (this.text[this.pos] === ',') {
        this.pos++;
        continue;
      }
      this.expect('}');
      this.depth--;
      return;
    }
  }

  skipValue(): void {
    this.space();
    const c = this.text[this.pos];
    if (c === '"') return this.skipString();
    if (c === '{') return this.members(() => this.skipValue());
    if (c === '[') {
      this.enter();
      this.pos++;
      this.space();
      if (this.text[this.pos] === ']') {
        this.pos++;
        this.depth--;
        return;
      }
      for (;;) {
        this.skipValue();
        this.space();
        if (this.text[this.pos] === ',') {
          this.pos++;
          continue;
        }
        this.expect(']');
        this.depth--;
        return;
      }
    }
    const match = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(
      this.text.slice(this.pos, this.pos + 400),
    );
    if (match === null) throw unreadable('not JSON');
    this.pos += match[0].length;
  }

  skipString(): void {
    this.expect('"');
    for (;;) {
      const c = this.text[this.pos++];
      if (c === undefined) throw unreadable('unterminated string');
      if (c === '\\') this.pos++;
      else if (c === '"') return;
    }
  }

  space(): void {
    while (/\s/.test(this.text[this.pos] ?? '')) this.pos++;
  }

  expect(c: string): void {
    if (this.text[this.pos] !== c) throw unreadable(`expected ${c}`);
    this.pos++;
  }
}

/** Text the scanner cannot follow; `rawTextAt` answers undefined for it. */
function unreadable(what: string): AgentToolError {
  return new AgentToolError('INVALID_ARGUMENTS', `raw JSON: ${what}`);
}
