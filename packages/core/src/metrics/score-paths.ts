/**
 * The paths of docs/spec/metrics.md section 2 that `flat_similarities` is keyed by, kept between calls in a trie.
 *
 * Documents of one evaluation repeat their paths (`line_items.12.total` in every invoice), and the two passes of one
 * comparison write the same ones. A string V8 has already made a property name is stored in an object four times
 * faster than a new one (which is hashed and looked up in the engine's string table first): building the ~420 keys
 * of one invoice's `flat_similarities` was the largest single part of `compareDocuments` (14 % of its time).
 * The trie is bounded: past {@link MAX_CACHED_PATHS} paths, or {@link MAX_CACHED_CHARACTERS} characters of them (keys
 * have no length limit of their own: a hostile document's long keys must not stay), it starts again empty.
 */

/** One place of a document: its path, and the places under it met so far. */
export class ScorePath {
  private children: Map<string, ScorePath> | null = null;

  constructor(
    /** The path (escaped segments joined with `.`); unused at the root. */
    readonly path: string,
    private readonly root: boolean,
  ) {}

  /** The place under this one at the object key or array index (as a string) `key`. */
  child(key: string): ScorePath {
    let children = this.children;
    if (children === null) children = this.children = new Map();
    let node = children.get(key);
    if (node === undefined) {
      const segment = escapeSegment(key);
      node = new ScorePath(this.root ? segment : this.path + '.' + segment, false);
      // A node made after a reset belongs to a trie no longer reachable: harmless, it is only not cached.
      cachedCharacters += node.path.length;
      if (++cachedPaths <= MAX_CACHED_PATHS && cachedCharacters <= MAX_CACHED_CHARACTERS) children.set(key, node);
    }
    return node;
  }
}

/** At most this many paths are kept (some MB); then the trie starts again empty. */
export const MAX_CACHED_PATHS = 50_000;
/** At most this many characters of paths are kept (a few MB); then the trie starts again empty. */
export const MAX_CACHED_CHARACTERS = 2_000_000;
let cachedPaths = 0;
let cachedCharacters = 0;
let rootPath = new ScorePath('', true);

/** The root of the current trie (a document's top level). */
export function scorePathRoot(): ScorePath {
  if (cachedPaths > MAX_CACHED_PATHS || cachedCharacters > MAX_CACHED_CHARACTERS) {
    rootPath = new ScorePath('', true);
    cachedPaths = 0;
    cachedCharacters = 0;
  }
  return rootPath;
}

/** In a segment `~` is written `~0` and `.` is written `~1` (docs/spec/metrics.md section 2). */
export function escapeSegment(segment: string): string {
  if (segment.indexOf('~') < 0 && segment.indexOf('.') < 0) return segment;
  return segment.replace(/~/g, '~0').replace(/\./g, '~1');
}
