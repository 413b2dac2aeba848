// The settings page (issue 27): an organization adds its own OpenAI-compatible endpoint with a key, and its models
// appear in the run form; a run of one of them reaches that endpoint with that key (a fake provider on loopback,
// started by this spec); a refused input says why; removing the endpoint takes its models away again. axe checks
// the page; its screenshot is docs/images/settings.png with E2E_SCREENSHOTS=1.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { completion, FakeOpenAIServer } from '../../../test-support/fake-openai-server.js';
import { readInvoice } from './fake-provider.js';
import { documentInput, invoiceSchema, rest, screenshotPath, signIn } from './support.js';

test.describe.configure({ timeout: 180_000 });

const CUSTOM_KEY = 'sk-e2e-settings-4f1c9a0b7d2e';
const ANTHROPIC_KEY = 'sk-ant-e2e-settings-7b3d';

/** The run form's model suggestions (the datalist fed by `models.list`). */
const suggestions = (page: Page) => page.locator('datalist option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));

async function openRunForm(page: Page, evaluationPath: string) {
  await page.goto(new URL(evaluationPath, page.url()).href);
  await page.getByRole('button', { name: 'Run iteration' }).click();
  await expect(page.getByRole('combobox', { name: 'Model' })).toBeVisible();
  // The suggestions have arrived (the list always has local-rules).
  await expect.poll(() => suggestions(page)).toContain('local-rules');
}

test('a key added on the settings page makes its models appear in the run form, and runs with it', async ({ page }) => {
  const provider = await new FakeOpenAIServer().start();
  provider.handle = (request) => {
    const parts = (request.body?.messages ?? []).flatMap((m: { content?: unknown }) =>
      typeof m.content === 'string' ? [m.content] : Array.isArray(m.content) ? m.content.map((p: { text?: string }) => p.text ?? '') : [],
    );
    return { body: completion(readInvoice(parts.join('\n')), { model: String(request.body?.model) }) };
  };
  try {
    // Earlier specs may have left keys in this store: the spec starts from none.
    await rest('DELETE', '/v1/secrets/custom_endpoint');
    await rest('DELETE', '/v1/secrets/external_api_keys/Anthropic');
    const evaluation = await rest('POST', '/v1/evals', { name: 'Settings e2e', json_schema: invoiceSchema, documents: [documentInput(0), documentInput(1)] });
    const evaluationPath = `/evals/${evaluation.id}`;

    await signIn(page, '/');
    await openRunForm(page, evaluationPath);
    expect(await suggestions(page)).not.toContain('custom/fake-good');

    // The header's link opens the settings page: every provider listed, none configured.
    await page.getByRole('banner').getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Settings');
    const table = page.getByRole('table', { name: 'Keys of this organization' });
    await expect(table.getByRole('row', { name: /^Anthropic/ })).toContainText('Not configured');
    await expect(table.getByRole('row', { name: /^Custom endpoint/ })).toContainText('Not configured');

    // A refused input: the server's words, nothing stored.
    const form = page.getByRole('form', { name: 'Add a key' });
    await form.getByLabel('Provider').selectOption({ label: 'Custom OpenAI-compatible endpoint (vLLM, Ollama, LiteLLM, Azure)' });
    await form.getByLabel('Base URL').fill('ftp://127.0.0.1/v1');
    await form.getByLabel('Models').fill('fake-good');
    await form.getByRole('button', { name: 'Save key' }).click();
    await expect(form.getByRole('alert')).toContainText('base_url must be an http(s) URL');
    await expect(table.getByRole('row', { name: /^Custom endpoint/ })).toContainText('Not configured');

    // The custom endpoint: the fake provider with a key; the key leaves the page once saved.
    await form.getByLabel('Base URL').fill(provider.baseURL);
    await form.getByLabel('Models').fill('fake-good, fake-other');
    await form.getByLabel('API key (optional)').fill(CUSTOM_KEY);
    await form.getByRole('button', { name: 'Save key' }).click();
    await expect(form.getByText('Custom endpoint saved')).toBeVisible();
    await expect(table.getByRole('row', { name: /^Custom endpoint/ })).toContainText('custom/fake-good, custom/fake-other');
    await expect(table.getByRole('row', { name: /^Custom endpoint/ })).toContainText('with a key');
    await expect(form.getByLabel('API key (optional)')).toHaveValue('');

    // A provider key: shown as configured, never the key.
    await form.getByLabel('Provider').selectOption('Anthropic');
    await form.getByLabel('API key').fill(ANTHROPIC_KEY);
    await form.getByRole('button', { name: 'Save key' }).click();
    await expect(table.getByRole('row', { name: /^Anthropic/ })).toContainText('Configured');
    await expect(table.getByRole('row', { name: /^Anthropic/ })).not.toContainText('Not configured');
    const html = await page.content();
    expect(html).not.toContain(CUSTOM_KEY);
    expect(html).not.toContain(ANTHROPIC_KEY);

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const results = await new AxeBuilder({ page }).analyze();
      const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${scheme}: ${v.id}`);
      expect(serious).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: screenshotPath('settings'), fullPage: true });

    // The run form now offers the endpoint's models; a run of one reaches the fake provider with the key.
    await openRunForm(page, evaluationPath);
    expect(await suggestions(page)).toEqual(expect.arrayContaining(['custom/fake-good', 'custom/fake-other']));
    await page.getByRole('combobox', { name: 'Model' }).fill('custom/fake-good');
    await page.getByRole('button', { name: 'Start' }).click();
    await expect(page.getByText('Completed.')).toBeVisible({ timeout: 60_000 });
    expect(provider.requests.length).toBe(2);
    expect(new Set(provider.requests.map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${CUSTOM_KEY}`]));
    expect(new Set(provider.requests.map((r) => r.body?.model))).toEqual(new Set(['fake-good']));

    // Removing the endpoint (after a confirmation) takes its models out of the run form.
    await page.getByRole('banner').getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Remove the custom endpoint' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await expect(page.getByRole('table', { name: 'Keys of this organization' }).getByRole('row', { name: /^Custom endpoint/ })).toContainText('Not configured');
    await page.getByRole('button', { name: 'Remove the Anthropic key' }).click();
    await page.getByRole('button', { name: 'Yes, remove' }).click();
    await expect(page.getByRole('table', { name: 'Keys of this organization' }).getByRole('row', { name: /^Anthropic/ })).toContainText('Not configured');
    await openRunForm(page, evaluationPath);
    expect(await suggestions(page)).not.toContain('custom/fake-good');
  } finally {
    await provider.stop();
  }
});
