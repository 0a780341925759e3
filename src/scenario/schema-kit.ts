// The few JSON Schema (draft-07) builders every part of the scenario language writes its schema with. Every
// `description` is user documentation; a `title` is the phrase error messages use for "expected ...".

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: Json };

/** A reference to a shared definition of the scenario schema (`#/definitions/<name>`). */
export const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });

export const withDescription = (s: Schema, description: string): Schema => ({ ...s, description });

/** Exactly one of `keys` must be present (the editor reports it too; the loader turns it into one message). */
export const exactlyOne = (keys: readonly string[]): Json[] =>
  keys.map((k) => ({ required: [k], properties: { [k]: true } }));

/** A mapping with these properties and no others. */
export const object = (
  properties: Record<string, Schema>,
  required: string[] = [],
  extra: Schema = {},
): Schema => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  additionalProperties: false,
  ...extra,
});

/** The JSON Schema type of a default value (configs: booleans, numbers, else strings). */
export function typeOf(value: unknown): Schema {
  if (typeof value === 'boolean') return { type: 'boolean' };
  if (typeof value === 'number') return { type: 'number' };
  return { type: 'string' };
}

/** A default as the descriptions show it. */
export function defaultText(value: unknown): string {
  return value === Number.POSITIVE_INFINITY ? 'unlimited' : JSON.stringify(value);
}
