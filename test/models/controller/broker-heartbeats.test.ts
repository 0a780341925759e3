import { describe, expect, it } from 'vitest';
import {
  type BrokerControlState,
  BrokerHeartbeatManager,
  nextBrokerState,
} from '../../../models/controller/index.ts';
import { emptyImage, replay } from '../../../models/metadata/index.ts';

const intent = (o: Partial<{ wantFence: boolean; wantShutDown: boolean; offset: number }> = {}) => ({
  wantFence: o.wantFence ?? false,
  wantShutDown: o.wantShutDown ?? false,
  currentMetadataOffset: o.offset ?? 10,
});

describe('nextBrokerState (the BrokerHeartbeatManager transitions)', () => {
  const next = (
    current: BrokerControlState,
    i: ReturnType<typeof intent>,
    leads = false,
    ready = false,
    registerOffset = 5,
  ) =>
    nextBrokerState(
      current,
      i,
      registerOffset,
      () => leads,
      () => ready,
    );

  it.each([
    ['FENCED', intent(), false, false, 'UNFENCED'],
    ['FENCED', intent({ offset: 4 }), false, false, 'FENCED'],
    ['FENCED', intent({ wantFence: true }), false, false, 'FENCED'],
    ['FENCED', intent({ wantShutDown: true }), false, false, 'SHUTDOWN_NOW'],
    ['UNFENCED', intent(), true, false, 'UNFENCED'],
    ['UNFENCED', intent({ wantFence: true }), true, false, 'FENCED'],
    ['UNFENCED', intent({ wantFence: true, wantShutDown: true }), true, false, 'SHUTDOWN_NOW'],
    ['UNFENCED', intent({ wantShutDown: true }), true, false, 'CONTROLLED_SHUTDOWN'],
    ['UNFENCED', intent({ wantShutDown: true }), false, false, 'SHUTDOWN_NOW'],
    ['CONTROLLED_SHUTDOWN', intent({ wantShutDown: true }), true, true, 'CONTROLLED_SHUTDOWN'],
    ['CONTROLLED_SHUTDOWN', intent({ wantShutDown: true }), false, false, 'CONTROLLED_SHUTDOWN'],
    ['CONTROLLED_SHUTDOWN', intent({ wantShutDown: true }), false, true, 'SHUTDOWN_NOW'],
  ] as const)('%s + %o (leads %s, ready %s) -> %s', (current, i, leads, ready, expected) => {
    expect(next(current, i, leads, ready)).toBe(expected);
  });
});

describe('BrokerHeartbeatManager', () => {
  const image = replay(emptyImage(), [
    {
      offset: 0,
      record: {
        type: 'RegisterBrokerRecord',
        brokerId: 1,
        incarnationId: 'a',
        host: 'h',
        port: 1,
        fenced: false,
      },
    },
    {
      offset: 1,
      record: {
        type: 'RegisterBrokerRecord',
        brokerId: 2,
        incarnationId: 'b',
        host: 'h',
        port: 1,
        fenced: false,
      },
    },
    {
      offset: 2,
      record: {
        type: 'RegisterBrokerRecord',
        brokerId: 3,
        incarnationId: 'c',
        host: 'h',
        port: 1,
        fenced: true,
      },
    },
  ]);

  it('finds the next expiry and stale brokers among unfenced ones only', () => {
    const m = new BrokerHeartbeatManager(9000);
    m.touch(1, 100, 0);
    m.touch(2, 50, 0);
    m.touch(3, 0, 0);
    expect(m.nextExpiry(image)).toBe(9050);
    expect(m.findOneStaleBroker(image, 9049)).toBeUndefined();
    expect(m.findOneStaleBroker(image, 9050)).toBe(2);
    expect(m.hasValidSession(image, 1, 9099)).toBe(true);
    expect(m.hasValidSession(image, 1, 9100)).toBe(false);
    expect(m.hasValidSession(image, 3, 1)).toBe(false);
  });

  it('is ready for shutdown once every active broker replayed the shutdown offset', () => {
    const m = new BrokerHeartbeatManager(9000);
    m.touch(1, 0, 7);
    m.touch(2, 0, 3);
    m.maybeSetControlledShutdownOffset(1, 5);
    m.maybeSetControlledShutdownOffset(1, 9); // only the first offset counts
    expect(m.lowestActiveOffset(image)).toBe(3);
    expect(m.controlledShutdownReady(image, 1)).toBe(false);
    m.touch(2, 0, 5);
    expect(m.controlledShutdownReady(image, 1)).toBe(true);
  });
});
