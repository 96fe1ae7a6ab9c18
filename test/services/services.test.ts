// Services tested below the HTTP layer: alert routing, fixed quotes, the isolate rate limiter, the sweep's
// queries, webhook retention and the per-isolate unlimited coins, one module each in ./services/,
// run as one test file.
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a second
// or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes and
// test names; run one with -t.
import "./services/alert-routing";
import "./services/fixed-quotes";
import "./services/rate-limiting";
import "./services/after-watch-sweep";
import "./services/sweep-plan";
import "./services/unclaimed-deposits";
import "./services/unlimited-coins";
import "./services/webhook-retention";
