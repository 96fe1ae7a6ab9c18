declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
}

// Vite's raw imports (file contents as a string), used to check docs against code.
declare module "*?raw" {
  const content: string;
  export default content;
}
