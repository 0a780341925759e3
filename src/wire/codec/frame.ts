// Framing: every request and response is an int32 size, then a header, then the body. Request headers are v1
// (apiKey, apiVersion, correlationId, nullable clientId) for non-flexible versions and v2 (the same plus tagged
// fields) for flexible ones; response headers are v0 (correlationId) or v1 (plus tagged fields), except that an
// ApiVersions response always has header v0 so that a client can read it whatever version it asked for (KIP-511).
import { API_SCHEMAS, RequestHeader, ResponseHeader } from '../generated/index.ts';
import { Reader, WireDecodeError, Writer } from './bytes.ts';
import { decodeMessage, encodeMessage, type Message } from './message-codec.ts';
import { inRange } from './schema.ts';

export const API_VERSIONS_KEY = 18;

export function isFlexibleRequest(apiKey: number, apiVersion: number): boolean {
  const api = API_SCHEMAS[apiKey];
  return api !== undefined && inRange(apiVersion, api.request.flexibleVersions);
}

export function requestHeaderVersion(apiKey: number, apiVersion: number): number {
  return isFlexibleRequest(apiKey, apiVersion) ? 2 : 1;
}

export function responseHeaderVersion(apiKey: number, apiVersion: number): number {
  if (apiKey === API_VERSIONS_KEY) return 0;
  const api = API_SCHEMAS[apiKey];
  return api !== undefined && inRange(apiVersion, api.response.flexibleVersions) ? 1 : 0;
}

export interface RequestFrame {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  /** The decoded body; undefined when this codec has no such API key or version (`unsupported`). */
  body: Message | undefined;
  unsupported: boolean;
}

/**
 * Decodes one request (the bytes after the size). An unknown API key or version is not an error here: the
 * caller answers it (UNSUPPORTED_VERSION). Malformed bytes throw WireDecodeError.
 */
export function decodeRequest(frame: Buffer): RequestFrame {
  const r = new Reader(frame);
  const apiKey = r.int16('request apiKey');
  const apiVersion = r.int16('request apiVersion');
  const correlationId = r.int32('request correlationId');
  const api = API_SCHEMAS[apiKey];
  if (!api || !inRange(apiVersion, api.request.validVersions)) {
    return { apiKey, apiVersion, correlationId, clientId: null, body: undefined, unsupported: true };
  }
  r.offset = 0;
  const header = decodeMessage(RequestHeader, requestHeaderVersion(apiKey, apiVersion), r);
  const body = decodeMessage(api.request, apiVersion, r);
  if (r.remaining !== 0)
    throw new WireDecodeError(`${api.request.name} v${apiVersion}: ${r.remaining} bytes after the body`);
  return {
    apiKey,
    apiVersion,
    correlationId,
    clientId: header.clientId as string | null,
    body,
    unsupported: false,
  };
}

/** A whole response frame, size prefix included. */
export function encodeResponse(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  body: Message,
): Buffer {
  const api = API_SCHEMAS[apiKey];
  if (!api) throw new Error(`no schema for API key ${apiKey}`);
  const w = new Writer(512);
  w.reserve(4);
  encodeMessage(ResponseHeader, responseHeaderVersion(apiKey, apiVersion), { correlationId }, w);
  encodeMessage(api.response, apiVersion, body, w);
  w.buf.writeInt32BE(w.offset - 4, 0);
  return w.result();
}

/** A whole request frame, size prefix included (tests, benchmarks and the in-process transport's peers). */
export function encodeRequest(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  clientId: string | null,
  body: Message,
): Buffer {
  const api = API_SCHEMAS[apiKey];
  if (!api) throw new Error(`no schema for API key ${apiKey}`);
  const w = new Writer(512);
  w.reserve(4);
  encodeMessage(
    RequestHeader,
    requestHeaderVersion(apiKey, apiVersion),
    { requestApiKey: apiKey, requestApiVersion: apiVersion, correlationId, clientId },
    w,
  );
  encodeMessage(api.request, apiVersion, body, w);
  w.buf.writeInt32BE(w.offset - 4, 0);
  return w.result();
}

/** Decodes a response frame's header and body (the bytes after the size). */
export function decodeResponse(
  apiKey: number,
  apiVersion: number,
  frame: Buffer,
): { correlationId: number; body: Message } {
  const api = API_SCHEMAS[apiKey];
  if (!api) throw new WireDecodeError(`no schema for API key ${apiKey}`);
  const r = new Reader(frame);
  const header = decodeMessage(ResponseHeader, responseHeaderVersion(apiKey, apiVersion), r);
  const body = decodeMessage(api.response, apiVersion, r);
  return { correlationId: header.correlationId as number, body };
}
