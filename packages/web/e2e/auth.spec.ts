import { expect, test } from '@playwright/test';
import { baseURL, signIn } from './support.js';

test('a wrong key is refused and nothing is shown', async ({ page }) => {
  await page.goto(baseURL());
  await page.getByLabel('API key').fill('not-a-key-of-this-server');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('not valid');
  await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(0);
  await expect(page.getByRole('table', { name: 'Evaluations' })).toHaveCount(0);
});

test('signing in shows the evaluations; the key lasts for the tab; signing out forgets it', async ({ page }) => {
  await signIn(page);
  await expect(page.getByRole('table', { name: 'Evaluations' })).toBeVisible();
  // Kept in sessionStorage: a reload stays signed in.
  await page.reload();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByLabel('API key')).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('API key')).toBeVisible();
  expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain(process.env.E2E_API_KEY ?? 'e2e-key');
});
