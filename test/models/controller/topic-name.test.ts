import { describe, expect, it } from 'vitest';
import { collidingTopic, invalidTopicNameReason } from '../../../models/controller/index.ts';

describe('topic names', () => {
  it('accepts legal names and explains illegal ones like Kafka', () => {
    expect(invalidTopicNameReason('orders.v1_x-2')).toBeUndefined();
    expect(invalidTopicNameReason('ü')).toBe(
      "Topic name is invalid: 'ü' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
    );
  });

  it('finds names that collide once . and _ are unified', () => {
    expect(collidingTopic('a.b', ['a_b', 'c'])).toBe('a_b');
    expect(collidingTopic('a-b', ['a_b'])).toBeUndefined();
    expect(collidingTopic('a.b', ['a.b'])).toBeUndefined();
  });
});
