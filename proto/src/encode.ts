import { BinaryWriter } from '@bufbuild/protobuf/wire';

interface Encoder<T> {
  encode(message: T, writer?: BinaryWriter): BinaryWriter;
}

// One writer for every hot-path encode of this thread: a new writer per message starts at 128 bytes and grows by
// doubling (a zero-filled allocation and a copy each time) up to the event's JSON size; this one keeps its
// buffer. Encoding is synchronous, so no two encodes interleave on it.
const shared = new BinaryWriter();

/** `codec.encode(message).finish()` on a shared writer: the same bytes, in a buffer of their own. */
export function encodeShared<T>(codec: Encoder<T>, message: T): Uint8Array {
  try {
    return codec.encode(message, shared).finish();
  } catch (err) {
    shared.finish(); // drop what a failed encode left in it
    throw err;
  }
}
