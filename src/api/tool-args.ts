// Command-line options the way Kafka's tools take them (joptsimple / argparse): `--name value` or
// `--name=value`, repeatable options (`--config a=b --config c=d`), multi-value options that take every
// following word up to the next option (`--producer-props acks=1 linger.ms=5`), and boolean flags. The CLI's
// client commands use it so that the source workflows' command lines work as written.

import { configMap, isForbiddenConfigName } from '../../models/metadata/index.ts';
import { ExitCode, KafkasimError } from '../../models/sim/index.ts';
import { didYouMean } from '../did-you-mean.ts';

export type OptionKind = 'flag' | 'value' | 'repeat' | 'multi';

export interface ParsedToolArgs {
  /** Values by option name (without dashes); flags map to []. */
  readonly values: ReadonlyMap<string, readonly string[]>;
  readonly positionals: readonly string[];
  has(name: string): boolean;
  /** The last value given for an option. */
  value(name: string): string | undefined;
  all(name: string): readonly string[];
}

/** Thrown for a usage problem; the command turns it into exit code 2 with the message. */
export class ToolArgsError extends KafkasimError {
  readonly code = 'INVALID_TOOL_ARGS';
  readonly exitCode = ExitCode.invalidInput;
  override name = 'ToolArgsError';
}

export function parseToolArgs(
  argv: readonly string[],
  spec: Readonly<Record<string, OptionKind>>,
): ParsedToolArgs {
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  const add = (name: string, v?: string) => {
    let list = values.get(name);
    if (!list) values.set(name, (list = []));
    if (v !== undefined) list.push(v);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq >= 0 ? eq : undefined);
    const inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    const kind = spec[name];
    if (kind === undefined) {
      // joptsimple's words, then the nearest option the tool knows.
      const hint = didYouMean(
        `--${name}`,
        Object.keys(spec).map((k) => `--${k}`),
      );
      throw new ToolArgsError(
        `${arg.slice(0, eq >= 0 ? eq : undefined)} is not a recognized option${hint ? ` (did you mean '${hint}'?)` : ''}`,
      );
    }
    if (kind === 'flag') {
      if (inline !== undefined) throw new ToolArgsError(`Option --${name} does not take an argument`);
      add(name);
      continue;
    }
    if (kind === 'multi') {
      const taken: string[] = inline !== undefined ? [inline] : [];
      while (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) taken.push(argv[++i]!);
      if (taken.length === 0) throw new ToolArgsError(`Option --${name} requires an argument`);
      for (const v of taken) add(name, v);
      continue;
    }
    let v = inline;
    if (v === undefined) {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2))
        throw new ToolArgsError(`Option --${name} requires an argument`);
      v = next;
      i++;
    }
    if (kind === 'value') values.delete(name);
    add(name, v);
  }
  return {
    values,
    positionals,
    has: (name) => values.has(name),
    value: (name) => values.get(name)?.at(-1),
    all: (name) => values.get(name) ?? [],
  };
}

/** A `key=value` list (`--config`, `--producer-props`) as a record; throws on an entry without `=`. */
export function keyValues(entries: readonly string[], option: string): Record<string, string> {
  const out = configMap();
  for (const e of entries) {
    const eq = e.indexOf('=');
    if (eq <= 0) throw new ToolArgsError(`Invalid ${option} '${e}': expected key=value`);
    const key = e.slice(0, eq).trim();
    if (isForbiddenConfigName(key))
      throw new ToolArgsError(`Invalid ${option} '${e}': '${key}' is not a config name`);
    out[key] = e.slice(eq + 1).trim();
  }
  return out;
}

/** A whole number option within bounds. */
export function intOption(
  text: string | undefined,
  option: string,
  min: number,
  max: number,
): number | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) throw new ToolArgsError(`--${option} expects a whole number, got '${text}'`);
  const n = Number(t);
  if (n < min || n > max)
    throw new ToolArgsError(`--${option} must be between ${min} and ${max}, got ${text}`);
  return n;
}

/** Java `.properties` text (key=value or key: value lines, # and ! comments). */
export function parseProperties(text: string): Record<string, string> {
  const out = configMap();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const m = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
    else out[line] = '';
  }
  return out;
}
