// Type declarations for the pure-JavaScript decompressors the record-batch codec uses (they ship none).
declare module 'snappyjs' {
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
  export function compress(uncompressed: Uint8Array): Uint8Array;
}
declare module 'lz4js' {
  export function decompress(src: Uint8Array, maxSize?: number): Uint8Array;
  export function decompressBound(src: Uint8Array): number;
  export function compress(src: Uint8Array, maxSize?: number): Uint8Array;
}
