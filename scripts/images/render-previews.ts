// npm run images: draws the app preview's SVG sources (beside this file) into the WebP files the
// landing page shows (public/images/preview-*.webp). Why not the SVG itself: an SVG image is a
// document of its own that the browser builds, styles and lays out on the page's main thread
// when the file arrives (its text chunk by chunk), 30-40 ms under 4× CPU slowdown for the phone
// preview, while a raster image is decoded off the main thread (docs/benchmarks.md).
// Chromium draws each source on a canvas at the scales the page's srcset offers and encodes it.
// Run it after changing a source, and commit both.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../chromium-flags';

/** WebP quality: at 0.8 the flat colours and text edges look as the SVG does at 2 dppx. */
const QUALITY = 0.8;

/** Each source and the scales written for it. */
export const PREVIEWS = [
  // Phones are 2 dppx or more: one file.
  { name: 'preview-phone', scales: [2] },
  { name: 'preview-desktop', scales: [1, 2] },
] as const;

/** A source beside this file, and the file it is drawn into at one scale. */
export const previewSource = (name: string) => path.join(__dirname, `${name}.svg`);
export const previewFile = (name: string, scale: number) =>
  path.resolve(__dirname, '../../public/images', `${name}-${scale}x.webp`);

async function main(): Promise<void> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_FLAGS,
    headless: true,
  });
  try {
    const page = await browser.newPage();
    for (const { name, scales } of PREVIEWS) {
      const svg = fs.readFileSync(previewSource(name), 'utf8');
      for (const scale of scales) {
        const base64 = await page.evaluate(
          async ({ svg, scale, quality }) => {
            const image = new Image();
            image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
            await image.decode();
            const canvas = document.createElement('canvas');
            canvas.width = image.naturalWidth * scale;
            canvas.height = image.naturalHeight * scale;
            canvas.getContext('2d')!.drawImage(image, 0, 0, canvas.width, canvas.height);
            const blob = await new Promise<Blob | null>((resolve) =>
              canvas.toBlob(resolve, 'image/webp', quality),
            );
            if (blob?.type !== 'image/webp') throw new Error('this Chromium cannot encode WebP');
            const bytes = new Uint8Array(await blob.arrayBuffer());
            let binary = '';
            for (const byte of bytes) binary += String.fromCharCode(byte);
            return btoa(binary);
          },
          { svg, scale, quality: QUALITY },
        );
        const file = previewFile(name, scale);
        fs.writeFileSync(file, Buffer.from(base64, 'base64'));
        console.log(`${path.relative(process.cwd(), file)}: ${fs.statSync(file).size} B`);
      }
    }
  } finally {
    await browser.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
