/**
 * What must hold for every partition in an image the controller writes (PartitionRegistration's rules): the ISR is a
 * non-empty set of replicas, the leader is -1 or an ISR member, adding and removing replicas are replicas, and in
 * shared mode there is exactly one replica.
 */
import type { MetadataImage } from '../metadata/index.ts';
import type { StorageMode } from './config.ts';

const isSet = (xs: readonly number[]) => new Set(xs).size === xs.length;

/** A description of the first violation, or undefined when every partition is well-formed. */
export function checkPartitionStates(image: MetadataImage, storageMode: StorageMode): string | undefined {
  for (const topic of Object.values(image.topics)) {
    for (const p of topic.partitions) {
      const at = `${topic.name}-${p.partition} (replicas ${JSON.stringify(p.replicas)}, isr ${JSON.stringify(p.isr)}, leader ${p.leader})`;
      if (p.replicas.length === 0) return `${at}: no replicas`;
      if (!isSet(p.replicas)) return `${at}: a replica appears twice`;
      if (p.isr.length === 0) return `${at}: empty ISR`;
      if (!isSet(p.isr)) return `${at}: an ISR member appears twice`;
      if (!p.isr.every((r) => p.replicas.includes(r))) return `${at}: ISR member that is not a replica`;
      if (p.leader !== -1 && !p.isr.includes(p.leader)) return `${at}: leader not in the ISR`;
      if (!p.addingReplicas.every((r) => p.replicas.includes(r)))
        return `${at}: adding replica not in replicas`;
      if (!p.removingReplicas.every((r) => p.replicas.includes(r)))
        return `${at}: removing replica not in replicas`;
      if (storageMode === 'shared' && p.replicas.length !== 1)
        return `${at}: shared mode needs exactly one replica`;
    }
  }
  return undefined;
}
