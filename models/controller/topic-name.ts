/**
 * Topic name rules, as Kafka's `Topic.validate` (clients `common/internals/Topic.java`) and the collision
 * check in `ReplicationControlManager.validateNewTopicNames` (metrics replace '.' with '_', so 'a.b' and 'a_b'
 * would share metric names).
 */

export const MAX_TOPIC_NAME_LENGTH = 249;

const LEGAL = /^[a-zA-Z0-9._-]+$/;

/** Kafka's InvalidTopicException message for an illegal name, or undefined when the name is legal. */
export function invalidTopicNameReason(name: string): string | undefined {
  let reason: string | undefined;
  if (name.length === 0) reason = 'the empty string is not allowed';
  else if (name === '.') reason = "'.' is not allowed";
  else if (name === '..') reason = "'..' is not allowed";
  else if (name.length > MAX_TOPIC_NAME_LENGTH)
    reason = `the length of '${name}' is longer than the max allowed length ${MAX_TOPIC_NAME_LENGTH}`;
  else if (!LEGAL.test(name))
    reason = `'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  return reason === undefined ? undefined : `Topic name is invalid: ${reason}`;
}

export function hasCollisionChars(name: string): boolean {
  return name.includes('.') || name.includes('_');
}

export function unifyCollisionChars(name: string): string {
  return name.replaceAll('.', '_');
}

/** An existing topic whose name collides with `name` once '.' and '_' are unified (not `name` itself). */
export function collidingTopic(name: string, existing: Iterable<string>): string | undefined {
  if (!hasCollisionChars(name)) return undefined;
  const unified = unifyCollisionChars(name);
  for (const other of existing) {
    if (other !== name && hasCollisionChars(other) && unifyCollisionChars(other) === unified) return other;
  }
  return undefined;
}
