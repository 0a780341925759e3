// Databend's error shape for the Lake: a numeric ErrorCode and a message, as the HTTP API puts them in `error: {code,
// message}`. Codes from databendlabs/databend src/common/exception/src/exception_code.rs
// (https://docs.databend.com/developer/apis/http). DuckDB's own errors are mapped onto the nearest Databend code so
// that a client sees Databend's shape, never DuckDB's.

export const DatabendErrorCodes = {
  UnknownDatabase: 1003,
  Syntax: 1005,
  UnknownTable: 1025,
  AbortedQuery: 1043,
  UnknownColumn: 1058,
  Semantic: 1065,
  TableAlreadyExists: 2302,
  AuthFailure: 5100,
} as const;

export type DatabendErrorName = keyof typeof DatabendErrorCodes;

export class LakeError extends Error {
  override name = 'LakeError';
  readonly code: number;

  constructor(
    readonly kind: DatabendErrorName,
    message: string,
  ) {
    super(message);
    this.code = DatabendErrorCodes[kind];
  }

  toJSON(): { code: number; message: string } {
    return { code: this.code, message: this.message };
  }
}

/** DuckDB prints a caret excerpt after the first line (`LINE 1: ...`); Databend clients never see DuckDB text. */
function firstLine(message: string): string {
  const cut = message.indexOf('\n');
  return (cut < 0 ? message : message.slice(0, cut)).trim();
}

/** Maps an error thrown by DuckDB onto Databend's code and a message without DuckDB's own prefixes. */
export function fromEngineError(err: unknown): LakeError {
  if (err instanceof LakeError) return err;
  const raw = err instanceof Error ? err.message : String(err);
  const line = firstLine(raw);
  const colon = line.indexOf(': ');
  const kind = colon > 0 ? line.slice(0, colon) : '';
  const text = colon > 0 ? line.slice(colon + 2) : line;
  if (kind === 'Parser Error') return new LakeError('Syntax', `SQL syntax error: ${text}`);
  if (kind === 'Catalog Error') {
    if (/schema "?[^"]*"? does not exist/i.test(text) || /^Schema with name/i.test(text))
      return new LakeError('UnknownDatabase', unquoteSchema(text));
    if (/already exists/i.test(text)) return new LakeError('TableAlreadyExists', text);
    if (/^Table with name/i.test(text)) return new LakeError('UnknownTable', text);
    return new LakeError('Semantic', text);
  }
  if (kind === 'Binder Error' && /Referenced column .* not found/i.test(text))
    return new LakeError('UnknownColumn', text);
  if (kind === 'INTERRUPT Error' || kind === 'Interrupt Error') return new LakeError('AbortedQuery', text);
  return new LakeError('Semantic', text || raw);
}

function unquoteSchema(text: string): string {
  const m = /schema "?([^"\s]+)"? does not exist/i.exec(text);
  return m ? `Unknown database '${m[1]}'` : text;
}
