// docs/secrets.md promises each provider's current models with their published prices: every model the providers
// table lists (what /v1/models offers an organization with that key) has a price, so no listed model costs null.
import { PROVIDER_INFO, PROVIDERS } from '@docevals/core/internal';
import { expect, it } from 'vitest';
import { DEFAULT_PRICES, findPrice } from '../src/prices.js';

it("every model the providers table lists has a price", () => {
  const unpriced = PROVIDERS.flatMap((provider) => PROVIDER_INFO[provider].listed.filter((model) => findPrice(model, DEFAULT_PRICES) === undefined));
  expect(unpriced).toEqual([]);
  expect(PROVIDERS.every((provider) => PROVIDER_INFO[provider].listed.length > 0)).toBe(true);
});
