import { defineConfig } from 'vite';

// Static files for the engine to serve at /: no inline scripts or styles (the engine's CSP forbids them).
export default defineConfig({
  root: 'src',
  publicDir: '../public',
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
});
