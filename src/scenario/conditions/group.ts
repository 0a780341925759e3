// group: a consumer group's Stable members and what they own.
import { exactlyOne, object, ref } from '../schema-kit.ts';
import type { Comparison } from '../types.ts';
import { type ConditionDefinition, fields } from './condition.ts';

export interface GroupCondition {
  name: string;
  assigned?: Comparison;
  perMember?: Comparison;
  members?: Comparison;
  unowned?: Comparison;
  spread?: Comparison;
}

const cmp = ref('comparison');

export const group: ConditionDefinition<GroupCondition, 'scenario'> = {
  scope: 'scenario',
  schema: object(
    { name: ref('clientName'), assigned: cmp, perMember: cmp, members: cmp, unowned: cmp, spread: cmp },
    ['name'],
    { anyOf: exactlyOne(['assigned', 'perMember', 'members', 'unowned', 'spread']) },
  ),
  syntax: '`{name, assigned | perMember | members | unowned | spread}`',
  description:
    "A consumer group's members that are Stable: `assigned` distinct partitions owned (each by exactly one member, else the count is -1), `perMember` partitions held by every member, `members` in the group, `unowned` partitions of the group's topic (as the metadata image has it now, added ones included) that no Stable member owns, `spread` the most minus the fewest partitions a member holds (-1 while any member is not Stable). `{unowned: 0}` and `{spread: {lte: 1}}` together say the group covers its topic evenly whatever its partition and member counts (for sweeps over them).",
  check: (v, refs, path) => refs.checkClient([...path, 'name'], v.name, ['group'], 'consumer group'),
  evaluate: (g, ctx) =>
    fields(`consumer group ${g.name}`, ctx.clients.groupStats(g.name), {
      assigned: g.assigned,
      perMember: g.perMember,
      members: g.members,
      unowned: g.unowned,
      spread: g.spread,
    }),
};
