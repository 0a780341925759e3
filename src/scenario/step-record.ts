// What a step left behind: when it ran, how it ended, and what it acted on, for the conditions, metrics and
// steps that refer to it by label (timing, leaderFromIsr, brokerOf, controllerOf, reassign-verify).
import type { MetadataImage } from '../../models/metadata/index.ts';

export interface StepRecord {
  index: number;
  label: string | undefined;
  action: string;
  /** When the step started and ended, in ms since the timeline started (undefined until it did). */
  start: number | undefined;
  end: number | undefined;
  /** A tool step: when its request reached the controller, in ms since the timeline started. */
  applied?: number;
  status: 'ok' | 'failed' | 'timed-out' | 'skipped';
  /** The broker the step acted on (crashBroker, restartBroker, slowBroker). */
  broker?: number;
  /** The controller the step acted on (crashController, restartController). */
  controller?: number;
  /** The controller's committed image when the step started. */
  image?: MetadataImage;
  error?: string;
}
