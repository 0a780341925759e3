// The broker's link to the active controller (Kafka's NodeToControllerChannelManager): requests go to the
// controller it believes active; a failed request or NOT_CONTROLLER moves it on (to the hinted one if any).

import type { ControllerRequest } from '../protocol/index.ts';
import { Errors } from '../protocol/index.ts';
import type { NodeId } from '../sim/index.ts';
import type { BrokerCore } from './broker-core.ts';

export class ControllerChannel {
  private controllerIndex = 0;

  constructor(
    private readonly core: BrokerCore,
    private readonly controllers: readonly NodeId[],
  ) {}

  private get controller(): NodeId {
    return this.controllers[this.controllerIndex % this.controllers.length]!;
  }

  /** Sends `req` to the active controller; `cb` gets the response, or undefined when it must be retried. */
  send<R>(req: ControllerRequest, cb: (r: R | undefined) => void): void {
    this.core.request<R & { errorCode?: number; controllerNodeId?: string }>(this.controller, req, (o) => {
      if (!o.ok) {
        this.controllerIndex++;
        return cb(undefined);
      }
      if (o.response.errorCode === Errors.NOT_CONTROLLER.code) {
        const hinted = o.response.controllerNodeId
          ? this.controllers.indexOf(o.response.controllerNodeId)
          : -1;
        this.controllerIndex = hinted >= 0 ? hinted : this.controllerIndex + 1;
        return cb(undefined);
      }
      cb(o.response);
    });
  }
}
