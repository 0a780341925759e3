// Java's String.format / SimpleDateFormat behaviour for the handful of conversions Kafka's tools use, so that
// numbers and dates come out digit for digit as the JVM prints them.
//
// Why not toFixed: java.util.Formatter formats a double from its shortest decimal representation (the digits
// of Double.toString) and then rounds that decimal HALF_UP (sun.misc.FormattedFloatingDecimal.applyPrecision).
// JS toFixed rounds the exact binary value instead, so they differ whenever the shortest repr ends in 5:
// Java prints "0.2" for %.1f of 0.15 and "1.01" for %.2f of 1.005, JS prints "0.1" and "1.00".
// Known gap: before JDK 19, Double.toString was not always the shortest repr (JDK-4511638); the rare doubles
// affected may differ in the last digit. Number#toString is the shortest repr, as JDK 19+ is.

import { FormatInputError } from './format-input-error.ts';

/** `%.<precision>f` exactly as Java formats a double (default precision 6, as `%f`). */
export function javaFixed(value: number, precision = 6): string {
  if (!Number.isInteger(precision) || precision < 0) {
    throw new FormatInputError('format-spec', `precision must be a non-negative integer, got ${precision}`);
  }
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  // Java keeps the sign of negative values that round to zero, and of -0.0.
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const [mantissa, exponentText] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  // digits[i] has place value 10^(exponent - i); keep those worth at least 10^-precision.
  const keep = exponent + precision + 1;
  let units: bigint;
  if (keep < 0) {
    units = 0n;
  } else if (keep === 0) {
    units = digits[0]! >= '5' ? 1n : 0n;
  } else {
    units = BigInt(digits.slice(0, keep).padEnd(keep, '0'));
    if (keep < digits.length && digits[keep]! >= '5') units += 1n;
  }
  const text = units.toString().padStart(precision + 1, '0');
  if (precision === 0) return sign + text;
  return `${sign}${text.slice(0, text.length - precision)}.${text.slice(text.length - precision)}`;
}

const SPEC = /%(-)?(\d+)?(?:\.(\d+))?([dsfn%])/g;

/**
 * Java's `String.format` for the conversions Kafka's tools use: `%d`, `%s`, `%f`/`%.Nf`, width and `-`
 * (left-justify) on each, `%n` (always "\n": the simulator prints Unix line ends) and `%%`.
 * Anything else, a missing argument or a non-integer for `%d` throws FormatInputError, as Java would throw.
 */
export function javaFormat(format: string, ...args: readonly unknown[]): string {
  let next = 0;
  let out = '';
  let last = 0;
  for (const m of format.matchAll(SPEC)) {
    const [whole, leftJustify, widthText, precisionText, conversion] = m;
    const before = format.slice(last, m.index);
    if (before.includes('%')) {
      throw new FormatInputError('format-spec', `unsupported format specifier in "${format}"`);
    }
    out += before;
    last = m.index + whole.length;
    if (conversion === 'n') {
      out += '\n';
      continue;
    }
    if (conversion === '%') {
      out += '%';
      continue;
    }
    if (next >= args.length) {
      throw new FormatInputError(
        'format-spec',
        `format "${format}" needs more than ${args.length} argument(s)`,
      );
    }
    const arg = args[next++];
    let text: string;
    if (conversion === 'd') {
      if (typeof arg === 'bigint') text = arg.toString();
      else if (typeof arg === 'number' && Number.isInteger(arg)) text = String(arg === 0 ? 0 : arg);
      else throw new FormatInputError('format-spec', `%d needs an integer, got ${String(arg)}`);
    } else if (conversion === 'f') {
      if (typeof arg !== 'number')
        throw new FormatInputError('format-spec', `%f needs a number, got ${String(arg)}`);
      text = javaFixed(arg, precisionText === undefined ? 6 : Number(precisionText));
    } else {
      text = arg === null || arg === undefined ? 'null' : String(arg);
      if (precisionText !== undefined) text = text.slice(0, Number(precisionText));
    }
    const width = widthText === undefined ? 0 : Number(widthText);
    out += leftJustify ? text.padEnd(width) : text.padStart(width);
  }
  const rest = format.slice(last);
  if (rest.includes('%'))
    throw new FormatInputError('format-spec', `unsupported format specifier in "${format}"`);
  return out + rest;
}

/** Java's `%-<width>s`: the text, then spaces up to width; longer text is never cut. */
export function padRight(text: string, width: number): string {
  return text.padEnd(width);
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * SimpleDateFormat for the patterns Kafka's tools use, in UTC (the simulator has no local zone):
 * `yyyy`, `MM`, `dd`, `HH`, `mm`, `ss`, `SSS`; every other character is copied as is (no quoting support).
 */
export function javaDate(epochMs: number, pattern: string): string {
  if (!Number.isFinite(epochMs)) throw new FormatInputError('invalid-view', `not a time: ${epochMs}`);
  const d = new Date(epochMs);
  return pattern.replace(/yyyy|MM|dd|HH|mm|ss|SSS/g, (token) => {
    switch (token) {
      case 'yyyy':
        return String(d.getUTCFullYear()).padStart(4, '0');
      case 'MM':
        return two(d.getUTCMonth() + 1);
      case 'dd':
        return two(d.getUTCDate());
      case 'HH':
        return two(d.getUTCHours());
      case 'mm':
        return two(d.getUTCMinutes());
      case 'ss':
        return two(d.getUTCSeconds());
      default:
        return String(d.getUTCMilliseconds()).padStart(3, '0');
    }
  });
}

/** log4j's default `%d` (ISO8601 without the T): `yyyy-MM-dd HH:mm:ss,SSS`, as Kafka's tools-log4j prints it. */
export function log4jTimestamp(epochMs: number): string {
  const d = new Date(epochMs);
  const year = d.getUTCFullYear();
  // Cut from toISOString (`yyyy-MM-ddTHH:mm:ss.SSSZ` for years 0-9999): one call instead of a pattern replace, as
  // a run can print a WARN line for each of thousands of retried batches. Other years: the general formatter.
  if (!(year >= 0 && year <= 9999)) return javaDate(epochMs, 'yyyy-MM-dd HH:mm:ss,SSS');
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)},${iso.slice(20, 23)}`;
}
