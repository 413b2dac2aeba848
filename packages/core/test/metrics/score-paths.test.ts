import { describe, expect, it } from 'vitest';
import { compareDocuments } from '../../src/index.js';
import { MAX_CACHED_CHARACTERS, MAX_CACHED_PATHS, scorePathRoot } from '../../src/metrics/score-paths.js';

describe('scorePathRoot', () => {
  it('escapes segments, gives the empty key its own path, and reuses the paths it made', () => {
    const root = scorePathRoot();
    expect(root.child('a.b').child('~').path).toBe('a~1b.~0');
    expect(root.child('').child('').path).toBe('.');
    expect(root.child('items').child('0').path).toBe('items.0');
    expect(root.child('items')).toBe(root.child('items'));
  });

  it('starts again empty past its bound, with the same paths and the same figures', () => {
    const before = compareDocuments({ x: { 'a.b': 1 }, l: [1, 2] }, { x: { 'a.b': 0.5 }, l: [2] });
    const root = scorePathRoot();
    const wide = root.child('wide');
    for (let i = 0; i <= MAX_CACHED_PATHS; i++) wide.child(String(i));
    const fresh = scorePathRoot();
    expect(fresh).not.toBe(root);
    expect(fresh.child('wide')).not.toBe(wide);
    const after = compareDocuments({ x: { 'a.b': 1 }, l: [1, 2] }, { x: { 'a.b': 0.5 }, l: [2] });
    expect(after).toEqual(before);
    expect(Object.keys(after.flat_similarities)).toEqual(['x.a~1b', 'l.0', 'l.1']);
  });

  it('starts again empty once the paths kept hold too many characters (keys of any length come and go)', () => {
    const root = scorePathRoot();
    const long = 'k'.repeat(100_000);
    for (let i = 0; i * long.length <= MAX_CACHED_CHARACTERS; i++) root.child(`${long}${i}`);
    const fresh = scorePathRoot();
    expect(fresh).not.toBe(root);
    expect(fresh.child('a').path).toBe('a');
  });
});
