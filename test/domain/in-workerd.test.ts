// Domain logic whose tests need workerd (the Worker's bindings): test-mode deposit addresses and
// keys, order ids and the addresses derived from them; one module each in ./in-workerd/, run as
// one test file in the workers project (vitest.config.ts, DOMAIN_IN_WORKERD).
// As separate files each paid a workerd start and a load of the Worker (≈ 5 s of CPU) for a few
// seconds or less of tests (docs/performance.md, "Test-suite time"). Each module keeps its describes
// and test names (a module with hooks of its own wraps them in one describe); run one with -t.
import "./in-workerd/order-id";
import "./in-workerd/test-mode";
