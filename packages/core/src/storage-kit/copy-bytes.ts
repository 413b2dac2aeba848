/**
 * A copy of exactly the bytes a view shows. Not `structuredClone` and not `bytes.buffer`: a Buffer is often a view
 * into a larger pooled ArrayBuffer (or into a whole request body), and both of those would copy or keep all of it.
 */
export function copyBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}
