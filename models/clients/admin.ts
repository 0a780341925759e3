// The admin client: sends admin requests to the active controller (moving on when told NOT_CONTROLLER or when
// a controller does not answer) and read requests (Metadata, DescribeConfigs, ListOffsets) to brokers, through
// the network like every client.

import { type BrokerRequest, type ControllerRequest, Errors } from '../protocol/index.ts';
import { type NodeId, SimNode, type Simulation } from '../sim/index.ts';

export interface AdminOptions {
  controllers: NodeId[];
  bootstrap: NodeId[];
  /** Per-attempt timeout (request.timeout.ms) and overall budget (default.api.timeout.ms). */
  requestTimeoutMs?: number;
  apiTimeoutMs?: number;
}

export type AdminOutcome<R> = { ok: true; response: R } | { ok: false; error: 'TIMEOUT' };

export class AdminClient extends SimNode {
  private controllerIndex = 0;
  private brokerIndex = 0;
  readonly requestTimeoutMs: number;
  readonly apiTimeoutMs: number;

  constructor(
    sim: Simulation,
    id: NodeId,
    private readonly options: AdminOptions,
  ) {
    super(sim, id);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.apiTimeoutMs = options.apiTimeoutMs ?? 60_000;
  }

  /** Sends an admin request to the active controller, retrying elsewhere until the API timeout. */
  controllerCall<R>(req: ControllerRequest, cb: (o: AdminOutcome<R>) => void): void {
    const deadline = this.sim.now + this.apiTimeoutMs;
    const attempt = () => {
      const target = this.options.controllers[this.controllerIndex % this.options.controllers.length]!;
      this.request<R & { errorCode?: number; controllerNodeId?: string }>(
        target,
        req,
        (o) => {
          const retry = () => {
            if (this.sim.now >= deadline) return cb({ ok: false, error: 'TIMEOUT' });
            this.schedule(100, attempt, 'admin.retry');
          };
          if (!o.ok) {
            this.controllerIndex++;
            return retry();
          }
          if (o.response.errorCode === Errors.NOT_CONTROLLER.code) {
            const hinted = o.response.controllerNodeId
              ? this.options.controllers.indexOf(o.response.controllerNodeId)
              : -1;
            this.controllerIndex = hinted >= 0 ? hinted : this.controllerIndex + 1;
            return retry();
          }
          cb({ ok: true, response: o.response });
        },
        this.requestTimeoutMs,
      );
    };
    attempt();
  }

  /** Sends a read request to a broker (`to`, or the next bootstrap broker), trying others on failure. */
  brokerCall<R>(req: BrokerRequest, cb: (o: AdminOutcome<R>) => void, to?: NodeId): void {
    const deadline = this.sim.now + this.apiTimeoutMs;
    const attempt = (first: boolean) => {
      const target =
        first && to ? to : this.options.bootstrap[this.brokerIndex % this.options.bootstrap.length]!;
      this.request<R>(
        target,
        req,
        (o) => {
          if (o.ok) return cb(o);
          this.brokerIndex++;
          if (this.sim.now >= deadline) return cb({ ok: false, error: 'TIMEOUT' });
          this.schedule(100, () => attempt(false), 'admin.retry');
        },
        this.requestTimeoutMs,
      );
    };
    attempt(true);
  }
}
