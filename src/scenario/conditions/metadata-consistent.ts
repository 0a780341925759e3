// metadataConsistent: every running broker and controller holds the active controller's committed image.
import type { MetadataImage } from '../../../models/metadata/index.ts';
import type { ConditionDefinition } from './condition.ts';

/** Images are immutable values: the same offset and the same content (compared structurally) are equal. */
function sameImage(a: MetadataImage, b: MetadataImage): boolean {
  if (a === b) return true;
  if (a.offset !== b.offset) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

export const metadataConsistent: ConditionDefinition<true, 'cluster'> = {
  scope: 'cluster',
  schema: { type: 'boolean', enum: [true], title: 'true' },
  syntax: '`true`',
  description:
    "`true`: an active controller exists and every running broker and controller holds exactly the active controller's committed metadata image (use it in waitUntil to wait for convergence).",
  evaluate(_v, ctx) {
    const { cluster } = ctx;
    const active = cluster.activeController();
    if (!active)
      return { passed: false, expected: 'one metadata image everywhere', actual: 'no active controller' };
    const image = active.committedImage;
    const behind: Record<string, number> = {};
    for (const b of cluster.brokers.values())
      if (b.up && b.image !== image && !sameImage(b.image, image)) behind[b.id] = b.image.offset;
    for (const x of cluster.controllers)
      if (x.up && x !== active && !sameImage(x.committedImage, image)) behind[x.id] = x.committedImage.offset;
    return {
      passed: Object.keys(behind).length === 0,
      expected: `every running broker and controller holds the active controller's committed image`,
      actual: { activeController: active.id, offset: image.offset, differing: behind },
    };
  },
};
