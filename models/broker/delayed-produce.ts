// Appending a produce request to the leaders' logs (Kafka's ReplicaManager.appendRecords) and, for acks=all,
// waiting until the high watermark covers every appended batch or request.timeout.ms passes (Kafka's
// DelayedProduce in the produce purgatory). Errors per partition: unknown topic, not the leader (with the
// leader hint of KIP-951), NOT_ENOUGH_REPLICAS under min.insync.replicas, out-of-order sequence, a fenced (older)
// producer epoch; a duplicate batch answers with the offset it was first written at.

import { effectiveTopicConfig } from '../metadata/index.ts';
import type { ProducePartitionResponse, ProduceRequest, ProduceResponse } from '../protocol/index.ts';
import { Errors } from '../protocol/index.ts';
import type { Timer } from '../sim/index.ts';
import type { BrokerCore } from './broker-core.ts';
import type { AckWaiter, PartitionReplica } from './partition-replica.ts';
import type { ReplicaManager } from './replica-manager.ts';

export function appendRecords(
  core: BrokerCore,
  replicaManager: ReplicaManager,
  wake: (key: string) => void,
  req: ProduceRequest,
  done: (response: ProduceResponse) => void,
): void {
  const results: ProducePartitionResponse[] = [];
  let waiting = 0;
  let timer: Timer | undefined;
  let finished = false;
  const mine: { replica: PartitionReplica; waiter: AckWaiter; res: ProducePartitionResponse }[] = [];
  const finish = () => {
    if (finished) return;
    finished = true;
    timer?.cancel();
    done({ correlationId: req.correlationId, partitions: results });
  };
  const image = core.image;
  for (const p of req.partitions) {
    const res: ProducePartitionResponse = {
      topic: p.topic,
      partition: p.partition,
      errorCode: 0,
      baseOffset: -1,
    };
    results.push(res);
    const r = replicaManager.findReplica(p.topic, p.partition);
    if (!image.topics[p.topic]) {
      res.errorCode = Errors.UNKNOWN_TOPIC_OR_PARTITION.code;
      continue;
    }
    if (!r || r.role !== 'leader') {
      res.errorCode = Errors.NOT_LEADER_OR_FOLLOWER.code;
      const hint = replicaManager.leaderHint(p.topic, p.partition);
      if (hint) res.currentLeader = hint;
      continue;
    }
    const minIsr = Number(effectiveTopicConfig(image, p.topic, 'min.insync.replicas', core.staticConfigs));
    if (req.acks === -1 && r.isr.length < minIsr) {
      res.errorCode = Errors.NOT_ENOUGH_REPLICAS.code;
      res.errorMessage = `The size of the current ISR ${JSON.stringify(r.isr)} is insufficient to satisfy the min.isr requirement of ${minIsr} for partition ${p.topic}-${p.partition}`;
      continue;
    }
    const outcome = r.log.appendAsLeader(p.batch, r.leaderEpoch, core.sim.now);
    if (outcome.kind === 'out-of-order') {
      res.errorCode = Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code;
      continue;
    }
    if (outcome.kind === 'invalid-epoch') {
      res.errorCode = Errors.INVALID_PRODUCER_EPOCH.code;
      res.errorMessage = `Epoch of producer ${p.batch.producerId} is ${p.batch.producerEpoch}, which is smaller than the last seen epoch ${outcome.currentEpoch}`;
      continue;
    }
    let requiredOffset: number;
    if (outcome.kind === 'duplicate') {
      // A retry of a batch already in the log: its acks=all answer waits for the high watermark to pass the
      // original like any append (Kafka's ReplicaManager.appendRecords puts it in DelayedProduce with the
      // original's last offset), or a leader whose followers never got it would acknowledge it.
      res.baseOffset = outcome.baseOffset;
      requiredOffset = outcome.lastOffset + 1;
      core.emit('broker.produce-duplicate', {
        topic: r.topic,
        partition: r.partition,
        baseOffset: outcome.baseOffset,
        highWatermark: r.log.highWatermark,
      });
    } else {
      res.baseOffset = outcome.batch.baseOffset;
      requiredOffset = outcome.batch.baseOffset + outcome.batch.count;
      r.bytesIn += p.batch.bytes;
      if (core.storageMode === 'shared') {
        r.log.highWatermark = r.log.logEndOffset; // the WAL write made it durable
        wake(r.key);
      } else {
        wake(r.key); // followers parked on it fetch the new batch
        r.maybeAdvanceHighWatermark();
      }
    }
    if (req.acks === -1 && r.log.highWatermark < requiredOffset) {
      waiting++;
      const waiter: AckWaiter = {
        requiredOffset,
        minIsr,
        resolve: (code) => {
          res.errorCode = code;
          if (--waiting === 0) finish();
        },
      };
      r.waiters.push(waiter);
      mine.push({ replica: r, waiter, res });
    }
  }
  if (waiting === 0) return finish();
  timer = core.schedule(
    req.timeoutMs,
    () => {
      for (const { replica, waiter, res } of mine) {
        const i = replica.waiters.indexOf(waiter);
        if (i < 0) continue;
        replica.waiters.splice(i, 1);
        res.errorCode = Errors.REQUEST_TIMED_OUT.code;
      }
      finish();
    },
    'broker.produce-timeout',
  );
}
