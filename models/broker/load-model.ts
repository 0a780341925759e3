// How load shows as latency on a broker. Network-in: an append's processing delay is the base append latency
// inflated by utilisation (an M/M/1-style 1/(1-rho) with rho the EWMA of bytes in over capacity, capped at 0.95)
// plus FIFO transfer time. Network-out: a response's bytes queue behind earlier responses at the out capacity.

import type { BrokerCore } from './broker-core.ts';

export class BrokerLoadModel {
  private inRate = 0;
  private inRateAt = 0;
  private inBusyUntil = 0;
  private outBusyUntil = 0;

  constructor(private readonly core: BrokerCore) {}

  /** At every start: nothing in flight (the rate's timestamp is kept, as the decay makes it harmless). */
  reset(): void {
    this.inRate = 0;
    this.inBusyUntil = 0;
    this.outBusyUntil = 0;
  }

  /** The processing delay for `bytes` arriving now: base append latency inflated by load, plus queueing. */
  produceDelay(bytes: number): number {
    const now = this.core.sim.now;
    const cap = this.core.config['kafkasim.broker.network.in.bytes.per.sec'];
    const decay = Math.exp(-(now - this.inRateAt) / 1000);
    this.inRate = this.inRate * decay + bytes; // bytes per second, EWMA with a 1 s time constant
    this.inRateAt = now;
    const rho = Math.min(0.95, this.inRate / cap);
    const start = Math.max(now, this.inBusyUntil);
    this.inBusyUntil = start + (bytes / cap) * 1000;
    return this.core.config['kafkasim.broker.append.latency.ms'] / (1 - rho) + (this.inBusyUntil - now);
  }

  /** Network-in load in bytes/s as the broker sees it (EWMA, 1 s). */
  get networkInRate(): number {
    return this.inRate * Math.exp(-(this.core.sim.now - this.inRateAt) / 1000);
  }

  /** Queues `bytes` (> 0) of response on network-out; returns the time until they are sent. */
  sendDelay(bytes: number): number {
    const now = this.core.sim.now;
    const cap = this.core.config['kafkasim.broker.network.out.bytes.per.sec'];
    const start = Math.max(now, this.outBusyUntil);
    this.outBusyUntil = start + (bytes / cap) * 1000;
    return this.outBusyUntil - now;
  }
}
