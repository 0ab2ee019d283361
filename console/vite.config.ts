import { defineConfig } from 'vite';

// Static files for the gateway's /console (strict CSP: no inline script or style, so nothing is inlined).
export default defineConfig({
  base: '/console/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
