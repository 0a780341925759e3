// A Java consumer's incremental fetch session with one broker (KIP-227; Kafka's FetchSessionHandler and its
// Builder). The first fetch is full (session id 0, epoch 0) and the broker answers with a session id; later fetches
// carry (id, epoch) and name only the partitions whose fetch state changed since the session last got them (a new
// position, a new byte budget, newly fetchable), plus those to forget (no longer fetched from this broker, or held
// back); the broker answers only partitions with news. FETCH_SESSION_ID_NOT_FOUND starts over without an id;
// any other top-level error, and a lost request, start a new session closing the old one
// (FetchMetadata.nextCloseExistingAttemptNew). librdkafka has no fetch sessions (its Fetch carries SessionId 0
// and SessionEpoch -1, rd_kafka_broker_fetch_toppars): the consumer uses this for the Java flavour only.

import {
  Errors,
  type FetchPartition,
  type FetchResponse,
  INITIAL_EPOCH,
  INVALID_SESSION_ID,
  nextEpoch,
} from '../protocol/index.ts';
import type { PartitionState } from './fetcher.ts';

/** A partition as the broker's session holds it: the offset and byte budget it last got. */
interface SessionPartition {
  st: PartitionState;
  fetchOffset: number;
  maxBytes: number;
}

/** What one fetch sends: the partitions to name, those to forget, and whether it is full. */
export interface SessionFetch {
  sessionId: number;
  sessionEpoch: number;
  partitions: FetchPartition[];
  forgotten: { topic: string; partition: number }[] | undefined;
  full: boolean;
}

export class FetchSessionHandler {
  sessionId = INVALID_SESSION_ID;
  epoch = INITIAL_EPOCH;
  /** What the broker's session holds after the last fetch built, by the partition's key (in the order added). */
  private readonly session = new Map<string, SessionPartition>();
  /** Marks of the last build (which session partitions the fetch still wants). */
  private wanted = new Set<string>();

  /**
   * The fetch for `parts` (every partition the consumer fetches from this broker now): all of them if the
   * session is new, else those that changed and those to forget (FetchSessionHandler.Builder.build).
   */
  build(parts: readonly PartitionState[], maxBytes: number): SessionFetch {
    const full = this.epoch === INITIAL_EPOCH;
    const partitions: FetchPartition[] = [];
    let forgotten: { topic: string; partition: number }[] | undefined;
    if (full) this.session.clear();
    const wanted = this.wanted;
    wanted.clear();
    for (let i = 0; i < parts.length; i++) {
      const st = parts[i]!;
      const offset = st.position!;
      wanted.add(st.key);
      const held = this.session.get(st.key);
      if (held && held.st === st && held.fetchOffset === offset && held.maxBytes === maxBytes) continue;
      if (held) {
        held.st = st;
        held.fetchOffset = offset;
        held.maxBytes = maxBytes;
      } else this.session.set(st.key, { st, fetchOffset: offset, maxBytes });
      partitions.push({
        topic: st.topic,
        partition: st.partition,
        fetchOffset: offset,
        partitionMaxBytes: maxBytes,
      });
    }
    if (!full && this.session.size > wanted.size) {
      for (const [key, held] of this.session) {
        if (wanted.has(key)) continue;
        this.session.delete(key);
        (forgotten ??= []).push({ topic: held.st.topic, partition: held.st.partition });
      }
    }
    return { sessionId: this.sessionId, sessionEpoch: this.epoch, partitions, forgotten, full };
  }

  /**
   * The offset the broker's session reads `key` from, if it holds it: an answer for a partition whose position
   * moved since (a seek) is stale.
   */
  fetchOffset(key: string): number | undefined {
    return this.session.get(key)?.fetchOffset;
  }

  /** The partition state the session holds under `key`. */
  partition(key: string): PartitionState | undefined {
    return this.session.get(key)?.st;
  }

  /**
   * Takes the answer to a fetch built as `full` or incremental; false if its partitions are not to be used (a
   * top-level session error: the next fetch is full).
   */
  handleResponse(res: FetchResponse, full: boolean): boolean {
    const error = res.errorCode ?? 0;
    if (error !== 0) {
      if (error === Errors.FETCH_SESSION_ID_NOT_FOUND.code) this.sessionId = INVALID_SESSION_ID;
      this.epoch = INITIAL_EPOCH;
      return false;
    }
    const id = res.sessionId ?? INVALID_SESSION_ID;
    if (id === INVALID_SESSION_ID) {
      // The broker keeps no session (its cache is full): every fetch is full.
      this.sessionId = INVALID_SESSION_ID;
      this.epoch = INITIAL_EPOCH;
    } else if (full) {
      this.sessionId = id;
      this.epoch = nextEpoch(INITIAL_EPOCH);
    } else {
      this.epoch = nextEpoch(this.epoch);
    }
    return true;
  }

  /** The request was lost (a timeout, a disconnect): what the broker holds is unknown; close it and start anew. */
  handleError(): void {
    this.epoch = INITIAL_EPOCH;
  }
}
