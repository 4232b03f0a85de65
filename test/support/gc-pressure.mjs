/* global process, setInterval */
// Test preload (`node --expose-gc --import ./gc-pressure.mjs …`): forces a garbage collection at
// start-up, every few milliseconds while the process (or worker thread) runs, and once more as it
// exits, so native finalizers run at the moments that crashed better-sqlite3 12 on Node 24
// (a statement finalized after its worker thread's environment was gone). Workers inherit it.
const collect = () => globalThis.gc?.()
collect()
setInterval(collect, 3).unref()
process.on('exit', collect)
