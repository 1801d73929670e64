// Takes JavaScript Promise Integration away from the page's analysis worker, so that it reads
// with FileReaderSync and starts no reader worker (web/src/async_reads.js). The worker's
// bootstrap is a text/javascript Blob the page makes: this init script (for
// `page.addInitScript` / `context.addInitScript`) prepends `WebAssembly.Suspending = undefined`
// to it. Used by the Playwright test of that path and by `bench/page.mjs --no-jspi`.
export function withoutJspi() {
  const NativeBlob = window.Blob;
  window.Blob = class extends NativeBlob {
    constructor(parts, options) {
      if (options?.type === 'text/javascript' && typeof parts?.[0] === 'string' && parts[0].includes('importScripts(')) {
        parts = ['WebAssembly.Suspending = undefined;\n' + parts[0], ...parts.slice(1)];
      }
      super(parts, options);
    }
  };
}
