// Whether a GPU composites this page, asked by the document's script for the starfall
// (server/pages/document.tsx). In a worker: making a WebGL context costs the main thread 15-20 ms
// where it is emulated in software, the very case this looks for. The answer is true only for a
// context that is neither refused as slow (failIfMajorPerformanceCaveat) nor drawn by a software
// renderer (SwiftShader, llvmpipe); without OffscreenCanvas it is false and the stars stand still.
// Built as a classic script of its own (scripts/build.ts): it imports and exports nothing.
let gpu = false;
const gl =
  typeof OffscreenCanvas === 'function'
    ? new OffscreenCanvas(1, 1).getContext('webgl', { failIfMajorPerformanceCaveat: true })
    : null;
if (gl) {
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
  gpu = !/swiftshader|llvmpipe|softpipe|software/i.test(renderer);
  gl.getExtension('WEBGL_lose_context')?.loseContext();
}
postMessage(gpu);
