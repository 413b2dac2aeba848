import { memoryStorage } from '@docevals/adapters/memory';
import { runStorageConformance } from '@docevals/adapters/conformance';

// Memory keeps nothing across processes, so there is no reopen: the persistence tests check close() only.
runStorageConformance({ name: 'memory', create: () => memoryStorage() });
