// The iteration page's duration: imported iterations say so instead of a blank or 0.0 s (issue 28's review).
import { describe, expect, it } from 'vitest';
import { iterationDuration } from '../src/iteration-duration.js';

describe('iterationDuration', () => {
  it('says "imported" for an iteration stored completed, started and finished at once', () => {
    const at = '2026-11-26T07:00:00.000Z';
    expect(iterationDuration({ status: 'completed', started_at: at, finished_at: at })).toBe('imported (no run time)');
  });

  it('gives a run its seconds, and "–" before it has finished', () => {
    expect(iterationDuration({ status: 'completed', started_at: '2026-11-26T07:00:00.000Z', finished_at: '2026-11-26T07:00:12.340Z' })).toBe('12.3 s');
    expect(iterationDuration({ status: 'failed', started_at: '2026-11-26T07:00:00.000Z', finished_at: '2026-11-26T07:00:00.000Z' })).toBe('0.0 s');
    expect(iterationDuration({ status: 'running', started_at: '2026-11-26T07:00:00.000Z', finished_at: null })).toBe('–');
    expect(iterationDuration({ status: 'queued', started_at: null, finished_at: null })).toBe('–');
  });
});
