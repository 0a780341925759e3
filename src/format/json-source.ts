// A strict JSON (RFC 8259) parser that remembers where every value starts, so that input files such as the
// reassignment JSON can be rejected with "what is wrong and where". JSON.parse cannot do this: its error text
// differs between Node versions and often carries no position, and it loses positions of valid values.

import { FormatInputError, type TextPosition } from './format-input-error.ts';

export type JsonNode =
  | { readonly kind: 'object'; readonly offset: number; readonly entries: readonly JsonEntry[] }
  | { readonly kind: 'array'; readonly offset: number; readonly items: readonly JsonNode[] }
  | { readonly kind: 'string'; readonly offset: number; readonly value: string }
  /** `raw` keeps the literal so callers can tell 1 from 1.0 (Jackson reads 1.0 as a double, not an int). */
  | { readonly kind: 'number'; readonly offset: number; readonly value: number; readonly raw: string }
  | { readonly kind: 'boolean'; readonly offset: number; readonly value: boolean }
  | { readonly kind: 'null'; readonly offset: number };

export interface JsonEntry {
  readonly key: string;
  readonly keyOffset: number;
  readonly value: JsonNode;
}

/** 1-based line and column of a 0-based offset. */
export function positionOf(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { offset, line, column: offset - lineStart + 1 };
}

export function describePosition(p: TextPosition): string {
  return `line ${p.line}, column ${p.column}`;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

export function parseJson(text: string): JsonNode {
  let i = 0;

  const fail = (what: string, at = i): never => {
    const pos = positionOf(text, at);
    const found = at >= text.length ? 'end of input' : JSON.stringify(text[at]);
    throw new FormatInputError(
      'json',
      `Invalid JSON at ${describePosition(pos)}: expected ${what}, found ${found}`,
      undefined,
      pos,
    );
  };
  const skipWs = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r'))
      i++;
  };
  const expect = (c: string) => {
    if (text[i] !== c) fail(`'${c}'`);
    i++;
  };

  const parseString = (): string => {
    expect('"');
    let out = '';
    for (;;) {
      if (i >= text.length) fail("closing '\"'");
      const c = text[i]!;
      if (c === '"') {
        i++;
        return out;
      }
      if (c < ' ') fail('an escaped control character');
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('4 hex digits after \\u', i + 2);
          out += String.fromCharCode(Number.parseInt(hex, 16));
          i += 6;
        } else if (e !== undefined && ESCAPES[e] !== undefined) {
          out += ESCAPES[e];
          i += 2;
        } else {
          fail('a valid escape', i + 1);
        }
      } else {
        out += c;
        i++;
      }
    }
  };

  const parseValue = (): JsonNode => {
    skipWs();
    const offset = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: JsonEntry[] = [];
      skipWs();
      if (text[i] === '}') {
        i++;
        return { kind: 'object', offset, entries };
      }
      for (;;) {
        skipWs();
        const keyOffset = i;
        if (text[i] !== '"') fail('a string key');
        const key = parseString();
        skipWs();
        expect(':');
        entries.push({ key, keyOffset, value: parseValue() });
        skipWs();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return { kind: 'object', offset, entries };
        }
        fail("',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      skipWs();
      if (text[i] === ']') {
        i++;
        return { kind: 'array', offset, items };
      }
      for (;;) {
        items.push(parseValue());
        skipWs();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return { kind: 'array', offset, items };
        }
        fail("',' or ']'");
      }
    }
    if (c === '"') return { kind: 'string', offset, value: parseString() };
    const literal = /^(?:true|false|null)/.exec(text.slice(i, i + 5));
    if (literal) {
      i += literal[0].length;
      if (literal[0] === 'null') return { kind: 'null', offset };
      return { kind: 'boolean', offset, value: literal[0] === 'true' };
    }
    const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (number) {
      i += number[0].length;
      return { kind: 'number', offset, value: Number(number[0]), raw: number[0] };
    }
    return fail('a JSON value');
  };

  const root = parseValue();
  skipWs();
  if (i < text.length) fail('end of input');
  return root;
}
