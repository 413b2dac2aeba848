/**
 * What an adapter reports after each write it makes to its medium, when the host asks (`onWrite` option): the
 * collection (or `files`) and how many bytes of records it wrote. Used by the conformance suite to check that one
 * small write touches records of bounded size, and by hosts that want to meter their store.
 */
export interface WriteReport {
  collection: string;
  bytes: number;
}

/** Called once per write the adapter makes; must not throw. */
export type WriteObserver = (report: WriteReport) => void;
