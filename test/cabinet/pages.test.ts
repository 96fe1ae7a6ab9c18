// The cabinet's Payouts, Webhooks and Settings pages and its anonymous surface (the per-IP limit,
// sign-in failures, the cron's pruning), one module each in ./pages/, run as one test file. The
// anonymous limits use IPs of their own and count only rows they made, so the pages' sign-ins
// (no client IP) do not touch their buckets.
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a few
// seconds or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes
// and test names (a module with hooks of its own wraps them in one describe); run one with -t.
import "./pages/anonymous-limits";
import "./pages/payouts";
import "./pages/webhooks-and-settings";
