// What the specs share: the server's address and key (set by global-setup.ts), signing in through the UI, and REST
// calls for seeding data the specs then look at.
import { Buffer } from 'node:buffer';
import { resolve } from 'node:path';
import { expect, type Page } from '@playwright/test';
import { invoiceSchema, invoiceText, type Invoice } from './fake-provider.js';

export const baseURL = () => {
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error('E2E_BASE_URL is not set: run the specs through playwright.config.ts (its global setup)');
  return url;
};
export const apiKey = () => process.env.E2E_API_KEY!;

/** Opens the app and signs in with the key through the sign-in form. */
export async function signIn(page: Page, path = '/'): Promise<void> {
  await page.goto(new URL(path, baseURL()).href);
  await page.getByLabel('API key').fill(apiKey());
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
}

/** A REST call with the key; throws with the body on a status other than 2xx. */
export async function rest<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(new URL(path, baseURL()), {
    method,
    headers: { 'api-key': apiKey(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The i-th test invoice. */
export const invoice = (i: number): Invoice => ({
  vendor: `Vendor ${String.fromCharCode(65 + (i % 26))}${i}`,
  total: 100 + i * 7,
  currency: i % 3 === 0 ? 'EUR' : 'USD',
});

/** A document input: the invoice as a text file (data URL) with itself as the annotation. */
export function documentInput(i: number, annotation: Invoice = invoice(i)) {
  const filename = `invoice-${String(i).padStart(4, '0')}.txt`;
  return {
    mime_data: { filename, url: `data:text/plain;base64,${Buffer.from(invoiceText(invoice(i))).toString('base64')}` },
    annotation,
  };
}

export { invoiceSchema };

/**
 * Where a screenshot goes: docs/images/<name>.png (the README's) when E2E_SCREENSHOTS=1, else .tmp/e2e-screenshots/,
 * so that a plain run (CI's) leaves the committed images alone.
 */
export const screenshotPath = (name: string) =>
  resolve(import.meta.dirname, '../../..', process.env.E2E_SCREENSHOTS === '1' ? 'docs/images' : '.tmp/e2e-screenshots', `${name}.png`);
