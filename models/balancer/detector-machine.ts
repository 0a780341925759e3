/**
 * The detector loop of AutoMQ's `AnomalyDetectorImpl` (`detector/AnomalyDetectorImpl.java`: its detect loop and
 * execution) as a state machine on the simulation's clock:
 *
 *   waiting --(anomaly.detect.interval.ms)--> detecting --(no batches)--> waiting
 *                                                 |--(batches)--> executing <--(execution.interval.ms)-- pausing
 *   executing --(batch committed, more left, within 60 s)--> pausing
 *   executing --(batch committed, none left or past 60 s)--> waiting
 *
 * The first detect comes one interval after the controller starts (AutoMQ schedules it `detectInterval` after
 * the detector is built: 60 s by default); later ones a fixed delay after the previous detect and its execution
 * finished. There is no event trigger. Each batch waits for its metadata commit, not for the partitions to open.
 */
import { assign, setup } from 'xstate';
import { MAX_REASSIGNMENT_EXECUTION_TIME_MS } from './config.ts';

export interface DetectorHost {
  detectIntervalMs(): number;
  executionIntervalMs(): number;
  now(): number;
  /** Runs one detect and returns how many batches it planned. */
  detect(): number;
  /** Sends batch `index`; `done` must run later (after the commit, or at once deferred if nothing was sent). */
  executeBatch(index: number, done: () => void): void;
  /** Execution ended: all batches done, or stopped at the time limit with `left` batches not sent. */
  executionEnded(left: number): void;
}

/** Guards against a commit that never comes (the controller lost leadership mid-batch). */
const BATCH_TIMEOUT_MS = 60_000;

export function createDetectorMachine(host: DetectorHost) {
  return setup({
    types: {
      context: {} as { batches: number; next: number; startedAt: number },
      events: {} as { type: 'BATCH_DONE' } | { type: 'ABORT' },
    },
    delays: {
      detectInterval: () => host.detectIntervalMs(),
      executionInterval: () => host.executionIntervalMs(),
    },
    guards: {
      hasBatches: ({ context }) => context.batches > 0,
      lastBatch: ({ context }) => context.next + 1 >= context.batches,
      pastDeadline: ({ context }) => host.now() - context.startedAt > MAX_REASSIGNMENT_EXECUTION_TIME_MS,
    },
  }).createMachine({
    id: 'auto-balancer-detector',
    initial: 'waiting',
    context: { batches: 0, next: 0, startedAt: 0 },
    states: {
      waiting: {
        after: { detectInterval: 'detecting' },
      },
      detecting: {
        entry: assign(() => ({ batches: host.detect(), next: 0, startedAt: host.now() })),
        always: [{ guard: 'hasBatches', target: 'executing' }, { target: 'waiting' }],
      },
      executing: {
        entry: ({ context, self }) =>
          host.executeBatch(context.next, () => self.send({ type: 'BATCH_DONE' })),
        after: {
          [BATCH_TIMEOUT_MS]: {
            target: 'waiting',
            actions: ({ context }) => host.executionEnded(context.batches - context.next),
          },
        },
        on: {
          BATCH_DONE: [
            { guard: 'lastBatch', target: 'waiting', actions: () => host.executionEnded(0) },
            {
              guard: 'pastDeadline',
              target: 'waiting',
              actions: ({ context }) => host.executionEnded(context.batches - context.next - 1),
            },
            { target: 'pausing', actions: assign({ next: ({ context }) => context.next + 1 }) },
          ],
          ABORT: {
            target: 'waiting',
            actions: ({ context }) => host.executionEnded(context.batches - context.next),
          },
        },
      },
      pausing: {
        after: { executionInterval: 'executing' },
        on: {
          ABORT: {
            target: 'waiting',
            actions: ({ context }) => host.executionEnded(context.batches - context.next),
          },
        },
      },
    },
  });
}
