// The web app's end-to-end tests: Playwright driving Debian's Chromium (no browser download; `scripts/setup.sh`
// installs the `chromium` package), against the standalone server started by global-setup.ts.
import { execFileSync } from 'node:child_process';
import { defineConfig } from '@playwright/test';

/** CHROMIUM_PATH, else the `chromium` on PATH. */
function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim().split('\n')[0]!;
  } catch {
    throw new Error('No Chromium found: run scripts/setup.sh (installs Debian\'s chromium) or set CHROMIUM_PATH.');
  }
}

const root = process.getuid?.() === 0;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  globalSetup: './global-setup.ts',
  // One server and two cores: the specs run one at a time, in file order.
  workers: 1,
  fullyParallel: false,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  forbidOnly: !!process.env.CI,
  // Traces of failed tests: outside the sources, ignored by git.
  outputDir: '../../../.tmp/e2e-results',
  // The JSON report is what .ci/run sums into its closing `Tests:` line.
  reporter: [['list'], ['json', { outputFile: '../../../.tmp/playwright.json' }]],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    colorScheme: 'light',
    acceptDownloads: true,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: chromiumPath(),
      // Chromium's sandbox refuses to run as root (CI and these machines run as root).
      args: root ? ['--no-sandbox'] : [],
    },
  },
});
