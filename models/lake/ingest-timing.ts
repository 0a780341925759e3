// How long an ingest takes in virtual time. The three load paths of databendcloud/bend-ingest-kafka:
// stage upload + COPY INTO (the default), streaming load (one PUT to /v1/streaming_load), and replace mode
// (parquet upload + REPLACE INTO ... ON (koffset, kpartition)). Each is a fixed cost plus a cost per row or
// byte. These are kafkasim model parameters, chosen to give tens of milliseconds per 1,000-row batch on a
// local warehouse; they are not measurements of Databend.

export interface IngestTimings {
  /** One round trip between the service and the Lake. */
  rttMs: number;
  /** Building the batch file (NDJSON or parquet) on the service, rows per ms. */
  buildRowsPerMs: number;
  /** zstd on NDJSON (copyIntoUploadCompression): compressed size / raw size. */
  compressionRatio: number;
  /** Upload bandwidth to the stage, bytes per ms. */
  uploadBytesPerMs: number;
  copyFixedMs: number;
  copyRowsPerMs: number;
  streamingLoadFixedMs: number;
  streamingLoadRowsPerMs: number;
  replaceFixedMs: number;
  replaceRowsPerMs: number;
  /** A request to a Lake that is down fails after this (connection refused). */
  refusedMs: number;
}

export const DEFAULT_INGEST_TIMINGS: Readonly<IngestTimings> = Object.freeze({
  rttMs: 1,
  buildRowsPerMs: 2000,
  compressionRatio: 0.2,
  uploadBytesPerMs: 100_000,
  copyFixedMs: 30,
  copyRowsPerMs: 500,
  streamingLoadFixedMs: 10,
  streamingLoadRowsPerMs: 500,
  replaceFixedMs: 60,
  replaceRowsPerMs: 200,
  refusedMs: 1,
});

export type LoadPath = 'copy-into' | 'streaming-load' | 'replace-into';

export interface IngestDuration {
  /** Building the file and uploading it to the stage (0 for streaming load, which sends it in the load). */
  uploadMs: number;
  /** COPY INTO / streaming load / REPLACE INTO. */
  loadMs: number;
}

export function ingestDuration(
  path: LoadPath,
  rows: number,
  bytes: number,
  t: IngestTimings,
): IngestDuration {
  const build = rows / t.buildRowsPerMs;
  const sent = (path === 'replace-into' ? bytes : bytes * t.compressionRatio) / t.uploadBytesPerMs;
  switch (path) {
    case 'copy-into':
      return {
        uploadMs: build + 2 * t.rttMs + sent,
        loadMs: t.rttMs + t.copyFixedMs + rows / t.copyRowsPerMs,
      };
    case 'streaming-load':
      return {
        uploadMs: 0,
        loadMs: build + t.rttMs + sent + t.streamingLoadFixedMs + rows / t.streamingLoadRowsPerMs,
      };
    case 'replace-into':
      return {
        uploadMs: build + 2 * t.rttMs + sent,
        loadMs: t.rttMs + t.replaceFixedMs + rows / t.replaceRowsPerMs,
      };
  }
}
