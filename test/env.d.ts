declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    /** Total requests of the fuzz suite (test/fuzz); empty: the default of `npm test`. */
    FUZZ_RUNS: string;
    /** Orders of the chaos and venue fault runs (test/lifecycle); empty: the default of `npm test`. */
    CHAOS_ORDERS: string;
  }
}

// Vite's raw imports (file contents as a string), used to check docs against code.
declare module "*?raw" {
  const content: string;
  export default content;
}
