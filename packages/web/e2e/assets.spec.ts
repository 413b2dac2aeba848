// The first page's weight and origin: the JavaScript the browser loads to show the sign-in page, gzip-compressed
// (the goal: at most 300 KB), and no request to another host (no CDN, fonts or scripts from elsewhere).
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { baseURL } from './support.js';

const GOAL_BYTES = 300 * 1024;

test('the first page loads at most 300 KB of gzipped JavaScript, all of it from the server itself', async ({ page }) => {
  const origin = new URL(baseURL()).origin;
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  const scripts: Promise<{ url: string; raw: number; gzip: number }>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'script') return;
    scripts.push(response.body().then((body) => ({ url: response.url(), raw: body.length, gzip: gzipSync(body, { level: 9 }).length })));
  });
  await page.goto(baseURL());
  await expect(page.getByLabel('API key')).toBeVisible();
  await page.waitForLoadState('networkidle');
  const loaded = await Promise.all(scripts);
  expect(loaded.length).toBeGreaterThan(0);
  const raw = loaded.reduce((sum, s) => sum + s.raw, 0);
  const gzip = loaded.reduce((sum, s) => sum + s.gzip, 0);
  console.log(`first page JS: ${loaded.length} files, ${(raw / 1024).toFixed(1)} KB, ${(gzip / 1024).toFixed(1)} KB gzip`);
  expect(gzip).toBeLessThanOrEqual(GOAL_BYTES);
  const elsewhere = requested.filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin);
  expect(elsewhere).toEqual([]);
});
