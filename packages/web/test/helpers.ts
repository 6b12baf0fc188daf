export const secret = 'whsec_web0123456789abcdef0123456789ab';

/** A body stream that hands out `chunk` forever and records how much was pulled and whether it was cancelled. */
export function endlessStream(chunk: Uint8Array) {
  const state = { pulledBytes: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulledBytes += chunk.byteLength;
      controller.enqueue(chunk.slice());
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

/** Splits bytes into small chunks, across UTF-8 sequences, as a network read may. */
export function chunkedStream(bytes: Uint8Array, size = 7): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}
