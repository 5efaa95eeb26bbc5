/**
 * The run report rendered in a real browser (Debian's Chromium through playwright-core, headless,
 * no sandbox): it renders with no request leaving the page, and the screenshot is a page, not a
 * blank. Skipped, and said so, where no Chromium is installed (apt-get install chromium).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { customersCsv, CUSTOMERS_JOB, fastEmulator, jobsYaml, workspace } from '../helpers/cli-harness.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const withBrowser = CHROMIUM === undefined ? it.skip : it;
if (CHROMIUM === undefined) console.warn('html-report-browser: no Chromium at /usr/bin/chromium: the browser test is skipped (apt-get install chromium)');

/**
 * Width and height (from the PNG header) and the share of pixels that are not white, counted by
 * the browser itself on a blank page (the report's own CSP forbids data: images).
 */
async function pixels(browser: Browser, png: Buffer): Promise<{ width: number; height: number; inked: number }> {
  const page = await browser.newPage();
  try {
    // Browser code as text: the project's types have no DOM.
    const inked = await page.evaluate<number>(`(async () => {
      const image = new Image();
      image.src = 'data:image/png;base64,${png.toString('base64')}';
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d');
      context.drawImage(image, 0, 0);
      const data = context.getImageData(0, 0, image.width, image.height).data;
      let count = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240) count++;
      return count / (image.width * image.height);
    })()`);
    return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), inked };
  } finally {
    await page.close();
  }
}

withBrowser('renders in Chromium with no request, and the screenshot is not blank', async () => {
  const emulator = await fastEmulator();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
  try {
    const ws = workspace();
    ws.write('customers.csv', customersCsv(12, (i, cells) => (i === 5 ? ['', ...cells.slice(1)] : cells)));
    ws.write('jobs.yaml', jobsYaml({ url: emulator.url, job: CUSTOMERS_JOB }));
    expect((await ws.run(['run', 'jobs.yaml', '--report-dir', 'reports'])).exitCode).toBe(1);
    const file = join(ws.dir, 'reports', 'import.report.html');
    expect(readFileSync(file, 'utf8')).toContain('KEY_MISSING');

    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    const requests: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith('file:')) requests.push(request.url());
    });
    await page.goto(`file://${file}`);
    expect(await page.locator('h1').textContent()).toBe('contact-sync: import');
    expect(await page.locator('#failures ~ h3').allTextContents()).toEqual(['KEY_MISSING: 1 row']);
    const chart = await page.locator('#rate + svg').boundingBox();
    expect(chart?.width).toBeGreaterThan(300);
    const shot = await page.screenshot({ fullPage: true });
    const image = await pixels(browser, shot);
    expect(image.width).toBe(1000);
    expect(image.height).toBeGreaterThan(600);
    // Text, the outcome bar and the chart: a blank page would be all white.
    expect(image.inked).toBeGreaterThan(0.02);
    expect(requests).toEqual([]);
  } finally {
    await browser.close();
    await emulator.close();
  }
}, 60_000);
