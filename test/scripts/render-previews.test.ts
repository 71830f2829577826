// The app preview's WebP files are drawn from SVG sources by `npm run images` and committed: each
// must be there, be WebP, and be the source's size times its scale, or the page shows a blurred or
// stretched preview (a source changed without drawing it again).
import fs from 'node:fs';
import { PREVIEWS, previewFile, previewSource } from '../../scripts/images/render-previews';

/** Pixel size of a WebP file, from its first chunk (VP8X, lossy VP8 or lossless VP8L). */
function webpSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WEBP')
    throw new Error('not a WebP file');
  const chunk = bytes.toString('ascii', 12, 16);
  if (chunk === 'VP8X')
    return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  if (chunk === 'VP8 ')
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  throw new Error(`unknown WebP chunk ${chunk}`);
}

/** width and height attributes of an SVG source's root element. */
function svgSize(file: string): { width: number; height: number } {
  const root = /<svg\b[^>]*>/.exec(fs.readFileSync(file, 'utf8'))![0];
  return {
    width: Number(/\bwidth="(\d+)"/.exec(root)![1]),
    height: Number(/\bheight="(\d+)"/.exec(root)![1]),
  };
}

describe('the app preview images', () => {
  for (const { name, scales } of PREVIEWS) {
    for (const scale of scales) {
      it(`public/images/${name}-${scale}x.webp is ${name}.svg drawn at ${scale}×`, () => {
        const source = svgSize(previewSource(name));
        const image = webpSize(fs.readFileSync(previewFile(name, scale)));
        expect(image).toEqual({ width: source.width * scale, height: source.height * scale });
      });
    }
  }
});
