// Digests of chunk pieces: what a worker reports with each result, so that a
// coordinator can compare two peers' results of one task without moving
// them. SHA-256 (WebCrypto, in Node and browsers alike), truncated to 128
// bits: a peer cannot make a wrong result pass as another peer's right one.

/** Hex SHA-256 of the bytes of `data`, truncated to 128 bits. */
export async function digestOf(data: ArrayBufferView): Promise<string> {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  // WebCrypto does not take views of shared memory: copy those first
  const own = bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
  const h = new Uint8Array(await crypto.subtle.digest('SHA-256', own as Uint8Array<ArrayBuffer>));
  let s = '';
  for (let i = 0; i < 16; i++) s += h[i]!.toString(16).padStart(2, '0');
  return s;
}
