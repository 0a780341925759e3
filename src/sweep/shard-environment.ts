// `--shard auto`: the shard index and count from the job runner that started this process, so that one command
// line serves every shard of a job.
// - Kubernetes Indexed Jobs (completionMode: Indexed) set JOB_COMPLETION_INDEX (0-based) in every pod; the pod
//   cannot see the Job's spec.completions, so the count comes from --shard-count (or KAFKASIM_SHARD_COUNT), which
//   the manifest sets to spec.completions (https://kubernetes.io/docs/concepts/workloads/controllers/job/).
// - GitLab CI's `parallel: N` sets CI_NODE_INDEX (1-based) and CI_NODE_TOTAL
//   (https://docs.gitlab.com/ee/ci/yaml/#parallel).
// - GitHub Actions has no such variables: a matrix job sees its position only as the expressions
//   `strategy.job-index` (0-based) and `strategy.job-total`, which the workflow passes in as KAFKASIM_SHARD_INDEX
//   and KAFKASIM_SHARD_COUNT (https://docs.github.com/en/actions/learn-github-actions/contexts#strategy-context).
//   Any other runner can set those two as well.
import { SweepInputError } from './errors.ts';
import type { Shard } from './grid.ts';

export interface ShardFromEnvironment {
  shard: Shard;
  /** Where it came from, e.g. "GitLab CI_NODE_INDEX=2, CI_NODE_TOTAL=4". */
  source: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const WHERE_TO_LOOK =
  'JOB_COMPLETION_INDEX (a Kubernetes Indexed Job, with --shard-count N), CI_NODE_INDEX and CI_NODE_TOTAL (GitLab parallel: N), or KAFKASIM_SHARD_INDEX and KAFKASIM_SHARD_COUNT (0-based index; GitHub Actions: strategy.job-index and strategy.job-total)';

function integer(name: string, text: string): number {
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw new SweepInputError(`--shard auto: ${name} is '${text}', not a whole number`);
  return Number(text);
}

/** The shard count from --shard-count or KAFKASIM_SHARD_COUNT (both given: they must agree). */
function givenCount(env: Env, shardCount: number | undefined): { n: number; from: string } | undefined {
  const fromEnv = env.KAFKASIM_SHARD_COUNT;
  const envCount = fromEnv !== undefined ? integer('KAFKASIM_SHARD_COUNT', fromEnv) : undefined;
  if (shardCount !== undefined && envCount !== undefined && shardCount !== envCount)
    throw new SweepInputError(
      `--shard auto: --shard-count ${shardCount} and KAFKASIM_SHARD_COUNT=${envCount} disagree`,
    );
  if (shardCount !== undefined) return { n: shardCount, from: `--shard-count ${shardCount}` };
  if (envCount !== undefined) return { n: envCount, from: `KAFKASIM_SHARD_COUNT=${envCount}` };
  return undefined;
}

function checked(k: number, n: number, source: string): ShardFromEnvironment {
  if (n < 1) throw new SweepInputError(`--shard auto: ${source}: the shard count must be at least 1`);
  if (k < 1 || k > n)
    throw new SweepInputError(`--shard auto: ${source}: shard ${k} of ${n} is out of range (1..${n})`);
  return { shard: { k, n }, source };
}

/**
 * The shard this process runs, from its environment (see the top of this file). Throws SweepInputError when no
 * runner's variables are there, when they are not numbers, or when two sources disagree.
 */
export function shardFromEnvironment(env: Env, shardCount?: number): ShardFromEnvironment {
  const count = givenCount(env, shardCount);
  const found: ShardFromEnvironment[] = [];
  if (env.KAFKASIM_SHARD_INDEX !== undefined) {
    const index = integer('KAFKASIM_SHARD_INDEX', env.KAFKASIM_SHARD_INDEX);
    if (!count)
      throw new SweepInputError(
        `--shard auto: KAFKASIM_SHARD_INDEX=${index} is set but not the count (KAFKASIM_SHARD_COUNT or --shard-count)`,
      );
    found.push(checked(index + 1, count.n, `KAFKASIM_SHARD_INDEX=${index}, ${count.from}`));
  }
  if (env.JOB_COMPLETION_INDEX !== undefined) {
    const index = integer('JOB_COMPLETION_INDEX', env.JOB_COMPLETION_INDEX);
    if (!count)
      throw new SweepInputError(
        `--shard auto: JOB_COMPLETION_INDEX=${index} (a Kubernetes Indexed Job) gives the index but not the count: add --shard-count N with N the Job's spec.completions`,
      );
    found.push(checked(index + 1, count.n, `Kubernetes JOB_COMPLETION_INDEX=${index}, ${count.from}`));
  }
  if (env.CI_NODE_INDEX !== undefined) {
    const index = integer('CI_NODE_INDEX', env.CI_NODE_INDEX);
    if (env.CI_NODE_TOTAL === undefined)
      throw new SweepInputError(`--shard auto: CI_NODE_INDEX=${index} is set but CI_NODE_TOTAL is not`);
    const total = integer('CI_NODE_TOTAL', env.CI_NODE_TOTAL);
    if (count && count.n !== total)
      throw new SweepInputError(`--shard auto: CI_NODE_TOTAL=${total} and ${count.from} disagree`);
    found.push(checked(index, total, `GitLab CI_NODE_INDEX=${index}, CI_NODE_TOTAL=${total}`));
  }
  if (found.length === 0)
    throw new SweepInputError(`--shard auto: no shard index in the environment; expected ${WHERE_TO_LOOK}`);
  const [first, ...rest] = found;
  for (const other of rest)
    if (other.shard.k !== first!.shard.k || other.shard.n !== first!.shard.n)
      throw new SweepInputError(
        `--shard auto: the environment names two different shards: ${first!.shard.k}/${first!.shard.n} (${first!.source}) and ${other.shard.k}/${other.shard.n} (${other.source})`,
      );
  return first!;
}
