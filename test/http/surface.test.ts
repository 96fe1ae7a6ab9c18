// The Worker's public surface without an order: icons, static files, conditional GETs, CORS,
// error bodies and the OpenAPI documents, one module each in ./surface/, run as one test file.
// (currencies.test.ts stays apart: it failed in this file, likely as conditional-get edits the
// catalog whose parameters it reads.)
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a second
// or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes and
// test names; run one with -t.
import "./surface/bench-routes";
import "./surface/conditional-get";
import "./surface/cors-and-methods";
import "./surface/document-strictness";
import "./surface/errors";
import "./surface/icons";
import "./surface/openapi";
import "./surface/public-cors";
import "./surface/static-assets";
