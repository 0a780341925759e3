/**
 * AutoMQ's normalizers (`common/normalizer/`, used for a broker's score): they map a deviation to
 * [0, 1]. The StepNormalizer is linear up to `step`, reaching `stepValue` there, then grows logarithmically
 * towards 1: N(x) = stepValue·(x − min)/(step − min) for x ≤ step, else
 * stepValue + (1 − stepValue)·(1 − ln(step)/ln(x)).
 */

export interface Normalizer {
  normalize(value: number): number;
}

export class LinearNormalizer implements Normalizer {
  constructor(
    readonly min: number,
    readonly max: number,
  ) {}

  normalize(value: number): number {
    return (value - this.min) / (this.max - this.min);
  }
}

export class StepNormalizer implements Normalizer {
  private readonly linear: LinearNormalizer;
  private readonly logStep: number;

  constructor(
    min: number,
    readonly step: number,
    readonly stepValue: number,
  ) {
    if (!(stepValue >= 0 && stepValue <= 1)) throw new RangeError('Step value must be in [0, 1]');
    this.linear = new LinearNormalizer(min, step);
    this.logStep = Math.log(step);
  }

  normalize(value: number): number {
    if (value <= this.step) return this.stepValue * this.linear.normalize(value);
    return this.stepValue + (1 - this.stepValue) * (1 - this.logStep / Math.log(value));
  }
}
