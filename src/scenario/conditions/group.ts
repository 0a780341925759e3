// group: a consumer group's Stable members and what they own.
import { exactlyOne, object, ref } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, fields } from './condition.ts';

export interface GroupCondition {
  name: string;
  assigned?: Comparison;
  perMember?: Comparison;
  members?: Comparison;
}

const cmp = ref('comparison');

export const group: ConditionDefinition<GroupCondition, 'scenario'> = {
  scope: 'scenario',
  schema: object({ name: ref('clientName'), assigned: cmp, perMember: cmp, members: cmp }, ['name'], {
    anyOf: exactlyOne(['assigned', 'perMember', 'members']),
  }),
  syntax: '`{name, assigned | perMember | members}`',
  description:
    "A consumer group's members that are Stable: `assigned` distinct partitions owned (each by exactly one member, else the count is -1), `perMember` partitions held by every member, `members` in the group.",
  check: (v, refs, path) => refs.checkClient([...path, 'name'], v.name, ['group'], 'consumer group'),
  evaluate: (g, ctx) =>
    fields(`consumer group ${g.name}`, ctx.clients.groupStats(g.name), {
      assigned: g.assigned,
      perMember: g.perMember,
      members: g.members,
    }),
};
