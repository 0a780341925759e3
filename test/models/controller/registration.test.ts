import { describe, expect, it } from 'vitest';
import { Errors } from '../../../models/protocol/index.ts';
import { Harness } from './harness.ts';

describe('broker registration and heartbeats', () => {
  it('registers a broker fenced, with the record offset as its epoch, and unfences it once caught up', () => {
    const h = new Harness({ brokers: [0] });
    h.controller.start();
    h.client.start();
    const b = h.broker(0);
    b.start();
    h.runUntil(() => b.brokerEpoch >= 0, 'registered');
    const reg = h.image.brokers[0]!;
    expect(reg.fenced).toBe(true);
    // The first record in the log is the RegisterBrokerRecord, so its offset (the epoch) is 0.
    expect(b.brokerEpoch).toBe(0);
    expect(reg.brokerEpoch).toBe(0);
    expect(h.controller.metadataLog.readCommitted(0, 1)[0]!.record.type).toBe('RegisterBrokerRecord');

    h.runUntil(() => h.isUnfenced(0), 'unfenced');
    // The heartbeat's answer comes once the unfence record is committed, one network hop later.
    h.runUntil(() => !b.isFenced, 'broker told it is unfenced', '1s');
    const unfence = h.eventsOf('controller.unfence');
    expect(unfence).toHaveLength(1);
    expect(unfence[0]).toMatchObject({ brokerId: 0, brokerEpoch: 0 });
    const last = b.heartbeatResponses.at(-1)!;
    expect(last).toMatchObject({ errorCode: 0, isCaughtUp: true, isFenced: false, shouldShutDown: false });
  });

  it('keeps a broker fenced while it has not replayed its own registration', () => {
    const h = new Harness({ brokers: [0] }).start();
    const epoch = h.broker(0).brokerEpoch;
    h.broker(0).silent = true;
    // Another incarnation registers once the session is gone, then heartbeats from behind its registration.
    h.runUntil(() => !h.isUnfenced(0), 'fenced', '30s');
    const reg = h.call({
      type: 'BrokerRegistration',
      brokerId: 0,
      incarnationId: 'other',
      rack: null,
      host: 'h',
      port: 1,
    });
    expect(reg.errorCode).toBe(0);
    expect(reg.brokerEpoch).toBeGreaterThan(epoch);
    const hb = h.call({
      type: 'BrokerHeartbeat',
      brokerId: 0,
      brokerEpoch: reg.brokerEpoch,
      currentMetadataOffset: reg.brokerEpoch - 1,
      wantFence: false,
      wantShutDown: false,
    });
    expect(hb).toMatchObject({ errorCode: 0, isCaughtUp: false, isFenced: true });
    const caughtUp = h.call({
      type: 'BrokerHeartbeat',
      brokerId: 0,
      brokerEpoch: reg.brokerEpoch,
      currentMetadataOffset: reg.brokerEpoch,
      wantFence: false,
      wantShutDown: false,
    });
    expect(caughtUp).toMatchObject({ errorCode: 0, isCaughtUp: true, isFenced: false });
    expect(h.isUnfenced(0)).toBe(true);
  });

  it('rejects heartbeats with a stale or unknown broker epoch', () => {
    const h = new Harness({ brokers: [0] }).start();
    const epoch = h.broker(0).brokerEpoch;
    const hb = (brokerId: number, brokerEpoch: number) =>
      h.call({
        type: 'BrokerHeartbeat',
        brokerId,
        brokerEpoch,
        currentMetadataOffset: 100,
        wantFence: false,
        wantShutDown: false,
      });
    expect(hb(0, epoch + 7)).toMatchObject({
      errorCode: Errors.STALE_BROKER_EPOCH.code,
      errorMessage: `Expected broker epoch ${epoch}, but got broker epoch ${epoch + 7}`,
    });
    expect(hb(9, 0)).toMatchObject({
      errorCode: Errors.STALE_BROKER_EPOCH.code,
      errorMessage: 'No broker registration found for broker id 9',
    });
  });

  it('refuses another incarnation while the session is alive and accepts it after the session expires', () => {
    const h = new Harness({ brokers: [0] }).start();
    const register = () =>
      h.call({
        type: 'BrokerRegistration',
        brokerId: 0,
        incarnationId: 'impostor',
        rack: null,
        host: 'x',
        port: 1,
      });
    expect(register()).toEqual({
      errorCode: Errors.DUPLICATE_BROKER_REGISTRATION.code,
      errorMessage: 'Another broker is registered with that broker id.',
      brokerEpoch: -1,
    });
    h.broker(0).crash();
    h.runUntil(() => !h.isUnfenced(0), 'session expired', '30s');
    const ok = register();
    expect(ok.errorCode).toBe(0);
    expect(h.image.brokers[0]!.incarnationId).toBe('impostor');
    expect(h.image.brokers[0]!.brokerEpoch).toBe(ok.brokerEpoch);
  });

  it('fences the old registration first when a live broker registers again with the same incarnation', () => {
    const h = new Harness({ brokers: [0, 1] }).start();
    h.call({
      type: 'CreateTopics',
      topics: [{ name: 't', numPartitions: -1, replicationFactor: -1, assignments: [[0, 1]] }],
    });
    const b0 = h.broker(0);
    const r = h.call({
      type: 'BrokerRegistration',
      brokerId: 0,
      incarnationId: `${b0.id}-${b0.incarnation}`,
      rack: null,
      host: 'h',
      port: 1,
    });
    expect(r.errorCode).toBe(0);
    expect(r.brokerEpoch).toBeGreaterThan(b0.brokerEpoch);
    expect(h.image.brokers[0]).toMatchObject({ fenced: true, brokerEpoch: r.brokerEpoch });
    expect(h.partition('t', 0)).toMatchObject({ leader: 1, isr: [1] });
    expect(h.eventsOf('controller.fence').at(-1)).toMatchObject({ brokerId: 0, reason: 're-registration' });
  });

  it('a restarted broker registers again once its old session has expired and is unfenced', () => {
    const h = new Harness({ brokers: [0, 1] }).start();
    const b = h.broker(1);
    const firstEpoch = b.brokerEpoch;
    b.restart();
    h.runUntil(() => b.brokerEpoch > firstEpoch && h.isUnfenced(1), 're-registered');
    // It was refused while its old session lived, so it got through only after the session timeout.
    expect(b.lastRegistration?.errorCode).toBe(0);
    expect(
      h
        .eventsOf('controller.register')
        .some((e) => e.errorCode === Errors.DUPLICATE_BROKER_REGISTRATION.code),
    ).toBe(true);
    expect(h.eventsOf('controller.fence').map((e) => [e.brokerId, e.reason])).toEqual([
      [1, 'session-timeout'],
    ]);
  });
});

describe('controlled shutdown (kafka mode)', () => {
  it('moves leadership away, then lets the broker shut down once it leads nothing', () => {
    const h = new Harness({ brokers: [0, 1, 2] }).start();
    h.call({
      type: 'CreateTopics',
      topics: [
        {
          name: 't',
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [
            [0, 1, 2],
            [0, 2, 1],
            [1, 2, 0],
          ],
        },
      ],
    });
    h.runUntil(() => h.image.topics.t !== undefined, 'topic');
    const b0 = h.broker(0);
    b0.wantShutDown = true;
    h.runUntil(() => b0.shouldShutDown, 'shutdown granted', '30s');
    const reg = h.image.brokers[0]!;
    expect(reg.inControlledShutdown).toBe(true);
    expect(reg.fenced).toBe(true);
    for (const p of [0, 1, 2]) {
      const part = h.partition('t', p);
      expect(part.leader).not.toBe(0);
      expect(part.isr).not.toContain(0);
    }
    expect(h.partition('t', 0).leader).toBe(1);
    expect(h.partition('t', 1).leader).toBe(2);
    const cs = h.eventsOf('controller.controlled-shutdown');
    expect(cs).toHaveLength(1);
    expect(h.eventsOf('controller.shutdown-granted')[0]).toMatchObject({
      brokerId: 0,
      from: 'CONTROLLED_SHUTDOWN',
    });
  });

  it('lets a broker that leads nothing shut down at once', () => {
    const h = new Harness({ brokers: [0, 1] }).start();
    const b1 = h.broker(1);
    b1.wantShutDown = true;
    h.runUntil(() => b1.shouldShutDown, 'shutdown granted', '10s');
    expect(h.eventsOf('controller.controlled-shutdown')).toHaveLength(0);
    expect(h.eventsOf('controller.shutdown-granted')[0]).toMatchObject({ brokerId: 1, from: 'UNFENCED' });
    expect(h.image.brokers[1]!.fenced).toBe(true);
  });
});
