import type { Storage } from '@docevals/core';
import { memoryStorage } from '@docevals/adapters/memory';
import { runStorageConformance } from '@docevals/adapters/conformance';

const written = new WeakMap<Storage, { bytes: number }>();

// Memory keeps nothing across processes, so there is no reopen: the persistence tests check close() only.
runStorageConformance({
  name: 'memory',
  create: () => {
    const meter = { bytes: 0 };
    const storage = memoryStorage({ onWrite: (write) => void (meter.bytes += write.bytes) });
    written.set(storage, meter);
    return storage;
  },
  writtenBytes: (storage) => written.get(storage)!.bytes,
});
